"""Claims P20–P26 (exact worst cases by performance estimation): confirmed in the quick profile
from the SDPs, with the figures the report draws; the full profile (larger grids, two steps,
n = 4) behind ``slow``. P26 (ours, Local GDA) is run from its module. The perturbations (rate
× 0.9, or the √κ slope) are checked refuted by the generic contract test
(tests/contract/test_claims.py)."""

from __future__ import annotations

import pytest

from fedbounds.verify import catalog

PEP_CLAIMS = [f"proxskip.p{k}" for k in range(20, 26)]


@pytest.mark.parametrize("cid", PEP_CLAIMS)
def test_quick_verdict_is_confirmed_from_the_sdp(cid, quick_verdict):
    verdict = quick_verdict(cid)
    assert verdict.verdict == "confirmed", (cid, verdict.statistic, verdict.evidence.keys())
    assert verdict.figure is not None and len(verdict.figure.series) >= 2
    if cid != "proxskip.p25":
        evidence = verdict.evidence
        assert evidence["solved_points"] == len(evidence["points"])
        assert evidence["tight_points"] >= 1  # the theorem is attained somewhere
        assert 1 - 1e-4 <= verdict.statistic <= 1 + 1e-5


def test_the_figures_show_where_the_theorem_is_loose(quick_verdict):
    """P20 at γ = 1/(2ℓ): tight for p² ≤ γμ, loose above (worst 1 − 3γμ/2 < 1 − γμ)."""
    series = quick_verdict("proxskip.p20").figure.series
    ps, worst = series["worst case (PEP), γ = 1/(2ℓ)"]
    _, theorem = series["theorem 1 − min{γμ, p²}, γ = 1/(2ℓ)"]
    gamma_mu = 0.5 / 10.0
    for p, w, t in zip(ps, worst, theorem, strict=True):
        if p**2 <= gamma_mu:
            assert w == pytest.approx(t, rel=1e-5)
        else:
            assert w == pytest.approx(1 - 1.5 * gamma_mu, rel=1e-5) and w < t


def test_p25_answers_kappa(quick_verdict):
    verdict = quick_verdict("proxskip.p25")
    assert verdict.statistic == pytest.approx(1.0, abs=0.1)
    assert verdict.evidence["minimisation_slope"] == pytest.approx(0.5, abs=0.1)


@pytest.mark.slow
@pytest.mark.parametrize("cid", PEP_CLAIMS)
def test_full_profile_is_confirmed(cid):
    verdict = catalog.claims()[cid].run("full", 0)
    assert verdict.verdict == "confirmed", (cid, verdict.statistic)


@pytest.fixture(scope="module")
def p26_quick():
    """P26's quick verdict, run from its module (the spec object, however it is registered)."""
    from fedbounds.verify.claims.proxskip import pep as pep_claims

    return pep_claims.p26.run("quick", 0)


def test_p26_local_gda_matches_its_closed_forms(p26_quick):
    """P26 (ours): every worst case with a closed form (contraction at ζ = 0, no bias at K = 1,
    γ⁴ℓ²ζ²/4 at K = 2) agrees within 1e-4; the fitted exponents pass their checks."""
    verdict = p26_quick
    assert verdict.verdict == "confirmed", (verdict.statistic, verdict.evidence.get("checks"))
    evidence = verdict.evidence
    assert evidence["solved_points"] == len(evidence["points"])
    assert evidence["compared_points"] >= 10 and verdict.statistic <= 1e-4
    assert all(evidence["checks"].values())
    assert evidence["one_round_bias_exponents"]["gamma"] == pytest.approx(4.0, abs=0.25)
    assert evidence["fixed_point_exponents"]["gamma"] == pytest.approx(2.0, abs=0.25)


def test_p26_figure_draws_the_bias_against_k(p26_quick):
    series = p26_quick.figure.series
    ks, one_round = series["bias after one round (PEP)"]
    _, fixed = series["fixed point (PEP)"]
    _, leading = series["γ⁴ℓ²ζ²K²(K − 1)²/16 (exact at K = 2)"]
    assert ks == [2, 3]
    assert one_round[0] == pytest.approx(leading[0], rel=1e-4)  # K = 2: exact
    assert one_round[1] < leading[1]  # K = 3: below the leading order at γℓ = 0.1
    assert all(f > b for f, b in zip(fixed, one_round, strict=True))  # converges further out
    assert one_round == sorted(one_round) and fixed == sorted(fixed)  # grows with K


def test_p26_perturbed_closed_forms_are_refuted():
    from fedbounds.verify.claims.proxskip import pep as pep_claims

    verdict = pep_claims.p26.run("quick", 0, closed_scale=0.9, gamma_ell=(0.1,), ks=(2,),
                                 rounds=(1,))
    assert verdict.verdict == "refuted"
    # the statistic alone refutes (1/0.9 − 1 > tol), whatever the exponent checks on this grid
    assert verdict.statistic == pytest.approx(1 / 0.9 - 1, rel=1e-3)


@pytest.mark.slow
def test_p26_full_profile_is_confirmed():
    from fedbounds.verify.claims.proxskip import pep as pep_claims

    verdict = pep_claims.p26.run("full", 0)
    assert verdict.verdict == "confirmed", (verdict.statistic, verdict.evidence.get("checks"))
