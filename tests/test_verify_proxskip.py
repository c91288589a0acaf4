"""Numeric side of ProxSkip-VIP: executor, exact recursion, fitting, algorithms, claims.

Acceptance (issue #3): exact recursion vs Monte Carlo (≥ 1000 replicas) within the MC interval;
p = 1 equals projected GDA to 1e-12; every quick claim returns a verdict with statistic,
prediction and tolerance; a perturbed prediction is refuted; same seed → identical numbers.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fedbounds.problems import proxskip as P
from fedbounds.verify.exact import proxskip as exact
from fedbounds.verify.algorithms import proxskip as A
from fedbounds.verify.catalog import AlgorithmEntry
from fedbounds.verify.claims.proxskip import CLAIMS
from fedbounds.verify.executor import execute, generators
from fedbounds.verify.fitting import bootstrap_slope, loglog_slope, mean_ci, ols, replica_slope

BY_ID = {c.id: c for c in CLAIMS}


@pytest.fixture(scope="module")
def gnorm():
    return P.g_norm(n=3, d=4, s=3.0, zeta_sq=1.0, seed=0)


def _theory(prob):
    c = A.fl_constants(prob)
    gamma = 1 / (2 * c["ell"])
    return c, gamma, math.sqrt(gamma * c["mu"])


# ---- executor --------------------------------------------------------------------------------


def test_same_seed_identical_and_different_seed_differs(gnorm):
    _, g, p = _theory(gnorm)
    a = A.run_proxskip(gnorm, g, p, 50, replicas=8, seed=3)
    b = A.run_proxskip(gnorm, g, p, 50, replicas=8, seed=3)
    c = A.run_proxskip(gnorm, g, p, 50, replicas=8, seed=4)
    assert np.array_equal(a.metrics["V"], b.metrics["V"])
    assert np.array_equal(a.communications, b.communications)
    assert not np.array_equal(a.metrics["V"], c.metrics["V"])


def test_streams_are_spawned_from_one_seedsequence():
    g1 = generators(5, ["noise", "coin"])
    g2 = generators(5, ["coin", "noise"])
    assert g1["noise"].random() == g2["noise"].random()
    assert generators(5, ["coin"])["coin"].random() != generators(6, ["coin"])["coin"].random()


def test_blowup_reports_diverged_with_round(gnorm):
    c, _, _ = _theory(gnorm)
    tr = A.run_proxskip(gnorm, 50 / c["ell"], 1.0, 500, replicas=4, seed=0)
    assert tr.diverged and tr.reason
    assert 0 < tr.diverged_at < 500
    assert tr.iterations[-1] == tr.diverged_at
    assert np.all(np.isfinite(tr.metrics["V"][:-1]))


def test_communications_are_binomial(gnorm):
    _, g, p = _theory(gnorm)
    T, R = 400, 400
    tr = A.run_proxskip(gnorm, g, p, T, replicas=R, seed=1, record_every=T)
    est = mean_ci(tr.communications[-1], level=0.999)
    assert est.lo <= p * T <= est.hi


def test_execute_validates_arguments():
    with pytest.raises(ValueError):
        execute((np.zeros((1, 1, 1)),), lambda s, d, t: (s, np.zeros(1)), -1, replicas=1,
                seed=0, metrics={})


# ---- exact recursion ----------------------------------------------------------------------------


def test_exact_recursion_matches_monte_carlo(gnorm):
    """Acceptance (2): E[V_t] (exact) inside the MC interval of R = 2000 replicas."""
    _, g, p = _theory(gnorm)
    maps = exact.proxskip_maps(gnorm, g, p)
    x0, h0 = np.zeros((3, 4)), np.zeros((3, 4))
    e0 = exact.initial_error(gnorm, x0, h0)
    T, R = 60, 2000
    EV = exact.expected_V(maps, e0, T)
    mean_e = exact.expected_V_mean_path(maps, e0, T)
    tr = A.run_proxskip(gnorm, g, p, T, replicas=R, seed=7, x0=x0, h0=h0)
    V = tr.metrics["V"]
    for t in (1, 2, 5, 10, 20, 40, 60):
        est = mean_ci(V[t], level=0.9999)
        assert est.lo <= EV[t] <= est.hi, (t, EV[t], est)
    assert EV[0] == pytest.approx(V[0, 0], rel=1e-12)
    # first moment too: E[x_T − x*] coordinates inside their intervals
    ex = (tr.state[0] - gnorm.z_star).reshape(R, -1)
    for k in range(ex.shape[1]):
        est = mean_ci(ex[:, k], level=0.9999)
        assert est.lo <= mean_e[T, k] <= est.hi


def test_exact_maps_match_one_simulated_step(gnorm):
    _, g, p = _theory(gnorm)
    maps = exact.proxskip_maps(gnorm, g, p)
    rng = np.random.default_rng(0)
    x, h = rng.standard_normal((1, 3, 4)), rng.standard_normal((1, 3, 4))
    e = exact.initial_error(gnorm, x[0], h[0])
    gx = A.oracle_f(np.ascontiguousarray(gnorm.J.transpose(0, 2, 1)), gnorm.b, x)
    for theta, T in ((False, maps.T0), (True, maps.T1)):
        x1, h1 = A.proxskip_update(x, h, gx, np.array([theta]), g, p)
        np.testing.assert_allclose(exact.initial_error(gnorm, x1[0], h1[0]), T @ e, atol=1e-12)


def test_spectral_radius_vech_equals_full_kronecker():
    prob = P.g_norm(n=2, d=2, s=2.0, seed=1)
    _, g, p = _theory(prob)
    maps = exact.proxskip_maps(prob, g, 0.7 * p)
    full = np.max(np.abs(np.linalg.eigvals(exact.second_moment_operator(maps))))
    assert exact.spectral_radius(maps) == pytest.approx(full, rel=1e-10)


def test_stationary_floor_is_the_limit_of_the_recursion():
    prob = P.with_noise(P.g_norm(n=2, d=2, s=2.0, seed=1), 0.5)
    _, g, p = _theory(prob)
    maps = exact.proxskip_maps(prob, g, p)
    Q = exact.noise_cov(prob)
    EV = exact.expected_V(maps, np.zeros(8), 4000, Q=Q)
    assert EV[-1] == pytest.approx(exact.stationary_V(maps, Q), rel=1e-8)


def test_p1_equals_projected_gda(gnorm):
    """Acceptance (2): p = 1 ProxSkip equals x ← Π(x − γg) to 1e-12 (any h_0, shared noise)."""
    v = BY_ID["proxskip.p11"].run("quick", seed=0)
    assert v.verdict == "confirmed" and v.statistic <= 1e-12
    assert BY_ID["proxskip.p11"].run("quick", seed=0, p=0.9).verdict == "refuted"


# ---- fitting ----------------------------------------------------------------------------------


def test_fits_recover_known_slopes():
    rng = np.random.default_rng(0)
    x = np.array([1.0, 2, 4, 8, 16])
    y = 3 * x**1.5 * np.exp(0.01 * rng.standard_normal(5))
    f = loglog_slope(x, y)
    assert f.lo <= 1.5 <= f.hi and f.hi - f.lo < 0.1
    Y = 2 * x**0.5 * np.exp(0.05 * rng.standard_normal((200, 5)))
    r = replica_slope(x, Y)
    assert r.lo <= 0.5 <= r.hi
    b = bootstrap_slope(x, Y, seed=1)
    assert b.lo <= 0.5 <= b.hi
    exact_line = ols(np.arange(4.0), 2 * np.arange(4.0) + 1)
    assert exact_line.slope == pytest.approx(2) and exact_line.hi - exact_line.lo < 1e-9


# ---- algorithms (Runs) ------------------------------------------------------------------------


def test_algorithm_entries_return_runs_fields():
    from fedbounds.verify.algorithms.proxskip import ALGORITHMS

    det = P.g_norm(n=3, d=4, seed=0)
    fs = P.finite_sum(det, m=5, spread=1.0, seed=0, jac_spread=0.5)
    for entry in ALGORITHMS:
        assert isinstance(entry, AlgorithmEntry)
        prob = fs if entry.name in ("proxskip-l-svrgda-fl", "proxskip-sgda-fl") else det
        out = entry.run(prob, {}, 20, 3, seed=0)
        assert set(out) >= {"constants", "config", "metrics", "summary"}
        assert len(out["metrics"]["dist_sq"]) == 21
        assert out["summary"]["communications"] >= 0
        assert np.isfinite(out["summary"]["final_dist_sq"])
        assert out["summary"]["final_dist_sq"] < out["metrics"]["dist_sq"][0]
        json.dumps(out)


def test_svrg_reaches_machine_precision_without_floor():
    prob = P.finite_sum(P.g_norm(n=3, d=4, s=2.0, seed=0), m=10, spread=1.0, seed=0,
                        jac_spread=1.0)
    c = A.fl_constants(prob)
    g = 1 / (6 * c["ell_hat"])
    tr = A.run_svrg(prob, g, math.sqrt(g * c["mu"]), 2 * g * c["mu"], 3000, replicas=8, seed=0)
    sg = A.run_proxskip(prob, 1 / (2 * c["L_g"]), math.sqrt(c["mu"] / (2 * c["L_g"])), 3000,
                        replicas=8, seed=0, estimator="sgda")
    assert tr.mean("dist_sq")[-1] < 1e-20 * tr.mean("dist_sq")[0]
    assert sg.mean("dist_sq")[-1] > 1e-6 * sg.mean("dist_sq")[0]  # SGDA has a floor


# ---- claims -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick_verdicts():
    # the claims of this file; tests/test_verify_proxskip_more.py covers p3, p5, p7, p13–p19
    return {c.id: c.run("quick", seed=0) for c in CLAIMS if c.id in FIRST}


FIRST = {f"proxskip.p{k}" for k in (1, 2, 4, 6, 8, 9, 10, 11, 12)}


def test_claim_ids_and_verdict_fields(quick_verdicts):
    assert set(BY_ID) >= FIRST
    for cid, v in quick_verdicts.items():
        assert v.id == cid
        assert v.verdict in ("confirmed", "refuted", "inconclusive", "diverged")
        assert v.statistic is not None and math.isfinite(v.statistic)
        assert v.predicted is not None and v.tolerance is not None
        assert v.figure is not None and v.figure.series
        assert v.config and v.evidence
        json.dumps(v.as_json())


def test_quick_claims_confirm_the_digest(quick_verdicts):
    assert {k: v.verdict for k, v in quick_verdicts.items()} == {
        k: "confirmed" for k in quick_verdicts}
    assert sum(v.seconds for v in quick_verdicts.values()) < 90


@pytest.mark.parametrize("cid, override", [
    ("proxskip.p1", {"tau_scale": 5.0}),
    ("proxskip.p2", {"tau_scale": 5.0}),
    ("proxskip.p6", {"predicted_slope": 0.5}),   # the √κ headline is refuted on G-norm
    ("proxskip.p8", {"predicted_slope": 1.0}),
    ("proxskip.p9", {"predicted_rate_change": 0.5}),
    ("proxskip.p12", {"tau_scale": 10.0}),
])
def test_perturbed_prediction_is_refuted(cid, override):
    assert BY_ID[cid].run("quick", seed=0, **override).verdict == "refuted"


def test_p4_perturbed_slope_refuted():
    v = BY_ID["proxskip.p4"].run("quick", seed=0, predicted_slope=2.0)
    assert v.verdict == "refuted"


def test_claims_are_reproducible():
    a = BY_ID["proxskip.p10"].run("quick", seed=2)
    b = BY_ID["proxskip.p10"].run("quick", seed=2)
    assert a.statistic == b.statistic and a.evidence["h_error_log_rate_ci"] == \
        b.evidence["h_error_log_rate_ci"]


def test_unknown_override_is_rejected():
    with pytest.raises(ValueError, match="unknown override"):
        BY_ID["proxskip.p1"].run("quick", seed=0, nonsense=1)


@pytest.mark.slow
@pytest.mark.parametrize("cid", sorted(BY_ID))
def test_full_profile(cid):
    v = BY_ID[cid].run("full", seed=0)
    assert v.verdict == "confirmed", v.evidence


@pytest.mark.slow
def test_benchmark_identical_iterates():
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_proxskip.py"
    out = subprocess.run([sys.executable, str(script), "--iterations", "50", "--replicas", "4"],
                         capture_output=True, text=True, check=True)
    assert "speed ratio" in out.stdout
