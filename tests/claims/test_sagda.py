"""SAGDA claims (predictions P1–P16): registration, verdict fields and the numbers in the
evidence of the bound-validity claims (p9d, p16), the exact identity (p2), the exact sampling
floor (p9b) and Theorem 1-II under partial participation (p8, slow). Perturbations are
covered by the generic contract test (tests/contract/test_claims.py)."""

from __future__ import annotations

import math

import pytest

from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithm import run_document
from fedbounds.verify.algorithms.sagda import FSGDA
from fedbounds.verify.claim import ClaimSpec
from fedbounds.verify.claims import sagda

NEW = ["sagda.p9d", "sagda.p16", "sagda.p1", "sagda.p3", "sagda.p4", "sagda.p11", "sagda.p12",
       "sagda.p15"]
SPECS = {spec.id: spec for spec in vars(sagda).values() if isinstance(spec, ClaimSpec)}


@pytest.fixture(scope="module")
def verdicts(quick_verdict):
    return {cid: quick_verdict(cid) for cid in NEW}


def test_registered_with_theorems_and_errata():
    assert set(SPECS) == {"sagda.p1", "sagda.p2", "sagda.p3", "sagda.p4", "sagda.p5", "sagda.p6a",
                          "sagda.p6b", "sagda.p7", "sagda.p8a", "sagda.p8b", "sagda.p9a",
                          "sagda.p9b", "sagda.p9c", "sagda.p9d", "sagda.p10", "sagda.p11",
                          "sagda.p12", "sagda.p15", "sagda.p16"}
    assert SPECS["sagda.p16"].provenance == SPECS["sagda.p9d"].provenance == "paper"
    assert SPECS["sagda.p8a"].provenance == "paper"  # inside Theorem 1-II's conditions
    assert SPECS["sagda.p10"].provenance == "extrapolation"  # outside Theorem 1-I's (11)–(13)
    assert SPECS["sagda.p9d"].errata == ("thm2-lf100", "thm2-psi4-factor2")
    assert "thm1-opt1-a2-replaced" in SPECS["sagda.p16"].errata
    assert SPECS["sagda.p8a"].errata == ("thm1-opt2-sampling",) and not SPECS["sagda.p8b"].errata
    assert SPECS["sagda.p6b"].measure is SPECS["sagda.p6a"].measure  # a variant


@pytest.mark.parametrize("cid", NEW)
def test_verdict_fields(verdicts, cid):
    v = verdicts[cid]
    assert v.id == cid
    assert v.verdict == "confirmed", (cid, v.statistic, v.evidence.get("inconclusive"))
    assert v.statistic is not None and math.isfinite(v.statistic)
    assert v.predicted is not None and v.tolerance is not None
    assert v.evidence and v.figure is not None and v.figure.series
    assert v.as_json()["id"] == cid
    if v.config:
        assert set(v.config) == {"algorithm", "problem", "set", "rounds", "seeds", "seed",
                                 "instance_seed"}


def test_bound_claims_evidence(verdicts):
    v = verdicts["sagda.p9d"]
    det, het = v.evidence["runs"]
    # m = M, σ = σ_G = 0: printed and corrected coincide; m < M: ψ4 doubles, L_f/100 → L_f/10
    assert det["printed_vs_corrected"]["corrected/printed"] == pytest.approx(1.0)
    diff = het["printed_vs_corrected"]["terms_that_differ"]
    assert set(diff) == {"statistical (x)", "sampling variance psi_4"}
    assert diff["sampling variance psi_4"]["corrected"] == pytest.approx(
        2 * diff["sampling variance psi_4"]["printed"])  # ψ4 [L226] vs Appendix B.1 [L637]
    for r in v.evidence["runs"]:
        assert r["sagda.thm2"]["conditions_hold"] and 0 < r["sagda.thm2"]["ratio"] < 1
    w = verdicts["sagda.p16"]
    pr, co = w.evidence["runs"]
    assert pr["sagda.thm1.opt1"]["conditions_hold"]
    assert co["sagda.thm1.opt1.corrected"]["conditions_hold"]
    assert co["gamma_x"] < pr["gamma_x"]  # corrected a_2 (Lemma 5) shrinks the admissible steps


def test_two_time_scale_ratio_is_at_least_twenty_kappa_squared(verdicts):
    """Every feasible case of p12 has (η_y/η_x)/(20κ²) ≥ 1, the smallest close to 1 (Theorem 1
    eqs. (13), (16), Theorem 2 eq. (9) [L150, L164, L217]: the bound is tight for small steps)."""
    ratios = [r["eta_y/eta_x_over_20kappa2"] for r in verdicts["sagda.p12"].evidence["cases"]
              if "max_eta_xg" in r]
    assert len(ratios) == 16 and min(ratios) >= 1 - 1e-9
    assert min(ratios) == pytest.approx(1.0006003603683298, rel=1e-9)


def test_exact_identity_option2_equals_fsgda_at_k1(quick_verdict):
    v = quick_verdict("sagda.p2")
    assert v.verdict == "confirmed" and v.statistic < 1e-12


def test_sampling_floor_linear_in_heterogeneity(quick_verdict):
    """Exact floors (all C(5, 2) client sets): slope 1 in σ_G² to 1e-9 (Theorem 2, ψ4 [L226])."""
    v = quick_verdict("sagda.p9b")
    assert v.verdict == "confirmed"
    assert v.statistic == pytest.approx(1.0, abs=1e-9)


def test_fsgda_run_document_on_the_quadratic_game():
    doc = run_document(FSGDA, "minmax-quadratic", make_game({"M": 4}, 0), {"K": 2, "m": 2},
                       rounds=20, seeds=2)
    assert set(doc) >= {"constants", "config", "metrics", "summary"}
    assert len(doc["metrics"]["grad_phi_sq"]) == 21
    assert doc["summary"]["communications"] == 20
    assert doc["summary"]["samples_per_client"] == 40  # K stochastic gradients per round


@pytest.mark.slow
def test_option2_bound_refuted_for_partial_participation(quick_verdict):
    assert quick_verdict("sagda.p8a").verdict == "refuted"
    assert quick_verdict("sagda.p8b").verdict == "confirmed"
