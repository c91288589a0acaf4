"""Claims P20–P25 (exact worst cases by performance estimation): confirmed in the quick profile
from the SDPs, with the figures the report draws; the full profile (larger grids, two steps,
n = 4) behind ``slow``. The perturbations (rate × 0.9, or the √κ slope) are checked refuted by
the generic contract test (tests/contract/test_claims.py)."""

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
