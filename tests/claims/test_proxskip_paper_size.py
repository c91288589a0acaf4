"""ProxSkip P17 at the paper's size and P19 with the authors' decreasing Local GDA step: the
invariant-subspace reduction of ProxSkip-GDA-FL on RLS against the full recursion and the
full simulator, the full radius as the larger of the reduced and the difference radius, the
authors' schedule, and what the two claims report."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.problems import proxskip as families
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms import proxskip as algorithms
from fedbounds.verify.exact import proxskip as exact


def _paper_rule(prob: families.AffineVIP) -> tuple[float, float]:
    c = prob.constants
    sched = algorithms.cor36_schedule(prob, ell=max(c["ell_spec_i"]), mu=c["mu_mean"])
    return sched["gamma"], sched["p"]


@pytest.mark.parametrize("size", [(8, 2, 2), (9, 2, 3), (20, 2, 4)])
def test_reduction_reproduces_the_full_second_moment_recursion(size):
    """E[V_t] from x_0 = h_0 = 0 in the reduced coordinates equals the full exact recursion
    (verify.exact.proxskip, 2n(s + r) coordinates) for 40 steps."""
    prob = families.rls(*size, lam=50.0, seed=0)
    gamma, p = _paper_rule(prob)
    reduced = algorithms.RLSReduced(prob, gamma, p)
    full = exact.expected_V(exact.proxskip_maps(prob, gamma, p), exact.initial_error(prob), 40)
    assert reduced.dim == 2 * prob.n * (reduced.s + 2 * reduced.m) <= 2 * prob.n * prob.d
    assert np.max(np.abs(reduced.expected_V(40) / full - 1)) < 1e-10


@pytest.mark.parametrize("size, rule, larger", [((9, 2, 3), "table", "difference"),
                                                ((9, 2, 3), "code", "difference"),
                                                ((8, 2, 2), "table", "reduced")])
def test_full_radius_is_the_larger_of_reduced_and_differences(size, rule, larger):
    """The spectral radius of the full second-moment map (dense Arnoldi) equals the larger of
    the reduced map's and the inert copies' 2 × 2 difference map's (0 with n = 2: no two inert
    copies)."""
    prob = families.rls(*size, lam=50.0, seed=0)
    c = prob.constants
    ell = max(c["ell_spec_i"]) if rule == "table" else c["ell_spec_mean"]
    sched = algorithms.cor36_schedule(prob, ell=ell, mu=c["mu_mean"])
    reduced = algorithms.RLSReduced(prob, sched["gamma"], sched["p"])
    full = exact.radius_arnoldi(exact.proxskip_maps(prob, sched["gamma"], sched["p"]))
    radii = {"reduced": reduced.radius()[0], "difference": reduced.difference_radius()}
    assert max(radii.values()) == pytest.approx(full, abs=1e-7)
    assert max(radii, key=radii.get) == larger


def test_reduction_follows_the_simulator_at_the_paper_size():
    """At r = 200, s = 8, n = 20, λ = 50 (8320 coordinates), one run of ProxSkip-GDA-FL through
    the executor and the reduced maps (1120 coordinates) applied along the same coin sequence
    give the same V_t."""
    prob = families.rls(r=200, s=8, n=20, lam=50.0, seed=0)
    gamma, p = _paper_rule(prob)
    reduced = algorithms.RLSReduced(prob, gamma, p)
    assert (reduced.dim, 2 * prob.n * prob.d) == (1120, 8320)
    T = 40
    tr = simulate(algorithms.proxskip_method(prob, gamma, p), T, seed=3)
    coins = np.diff(tr.communications[:, 0]) > 0
    assert 0 < coins.sum() < T
    e = reduced.e0[:, None]
    V = [float(reduced.weights @ e[:, 0] ** 2)]
    for theta in coins:
        e = reduced.local(e)
        if theta:
            e = reduced.communicate(e)
        V.append(float(reduced.weights @ e[:, 0] ** 2))
    assert np.allclose(V, tr.metrics["V"][:, 0], rtol=1e-9)


def test_authors_decreasing_local_gda_schedule():
    """γ_t = 8/(μ(a + t)) with a = 2048·H·(L_max/μ)² from the problem's constants; the
    scheduled method with a constant schedule is the constant-step Local GDA."""
    prob = families.quadratic_game(n=4, m=5, d=4, seed=0)
    H = 3
    steps, constants = algorithms.authors_local_gda_schedule(prob, H)
    mu, L = float(prob.constants["mu"]), float(prob.constants["L"])
    a = 2048 * H * (L / mu) ** 2
    assert constants["a"] == pytest.approx(a) and steps(0) == pytest.approx(8 / (mu * a))
    assert steps(10) == pytest.approx(8 / (mu * (a + 10)))
    constant = simulate(algorithms.local_method(prob, 0.05, H), 20).metrics["dist_sq"]
    scheduled = simulate(algorithms.scheduled_local_method(prob, lambda t: 0.05, H),
                         20).metrics["dist_sq"]
    assert np.allclose(constant, scheduled, rtol=1e-12)


def test_p17_reports_exact_radii_with_the_structured_check(quick_verdict):
    """Quick P17: the statistic is the largest Table-G radius over its systems; the structured
    radius agrees with the dense one on the small system; the structured system reports its
    reduced dimension."""
    v = quick_verdict("proxskip.p17")
    table = [r for r in v.evidence["rows"] if r["rule"].startswith("Table G")]
    assert v.statistic == pytest.approx(max(r["spectral_radius"] for r in table))
    assert v.evidence["structured_vs_dense_max_abs_diff"] <= 1e-6
    big = [r for r in table if "reduced_dimension" in r]
    assert big and all(r["reduced_dimension"] == 2 * r["n"] * (r["s"] + 2 * r["r"] // r["n"])
                       for r in big)
    assert v.verdict == "confirmed"


def test_p19_includes_the_authors_decreasing_baseline(quick_verdict):
    """P19 runs Local GDA with the authors' 8/(μ(a + t)) beside the constant steps, and
    ProxSkip-GDA-FL's error after K rounds is below it too."""
    v = quick_verdict("proxskip.p19")
    name = "Local GDA (8/(μ(a + t)), authors' code)"
    assert name in v.evidence["baselines"] and name in v.figure.series
    assert v.evidence["authors_decreasing_local_gda"]["log10_proxskip_over_it"] < 0
    assert v.evidence["best_baseline"] <= v.evidence["baselines"][name]
