"""SAGDA claims added for issue #5 (bound validity p9d, p16; §8 P1, P3, P4, P11, P12, P15):
verdict fields, a perturbed prediction gives `refuted`, the same seed gives the same numbers."""

from __future__ import annotations

import math

import pytest

from fedbounds.verify.claims import sagda

NEW = ["sagda.p9d", "sagda.p16", "sagda.p1", "sagda.p3", "sagda.p4", "sagda.p11", "sagda.p12", "sagda.p15"]
BY_ID = {c.id: c for c in sagda.CLAIMS}

# claim id -> overrides that move the prediction past the measured statistic
PERTURB = {"sagda.p9d": {"bound_scale": 0.01}, "sagda.p16": {"bound_scale": 0.01},
           "sagda.p1": {"predicted": 1.0}, "sagda.p3": {"scale": 0.1}, "sagda.p4": {"scale": 0.1},
           "sagda.p11": {"predicted": -1.0}, "sagda.p12": {"predicted": 1.5},
           "sagda.p15": {"predicted": 1.0}}


@pytest.fixture(scope="module")
def verdicts():
    return {cid: BY_ID[cid].run(profile="quick", seed=0) for cid in NEW}


def test_registered_and_existing_unchanged():
    ids = [c.id for c in sagda.CLAIMS]
    assert len(ids) == len(set(ids))
    for cid in NEW:
        assert cid in ids
    for old in ("sagda.p2", "sagda.p5", "sagda.p6a", "sagda.p6b", "sagda.p7", "sagda.p8a",
                "sagda.p8b", "sagda.p9a", "sagda.p9b", "sagda.p9c", "sagda.p10"):
        assert old in ids
    assert BY_ID["sagda.p16"].own and not BY_ID["sagda.p9d"].own
    assert BY_ID["sagda.p9d"].errata == ["thm2-lf100", "thm2-psi4-factor2"]
    assert "thm1-opt1-a2-replaced" in BY_ID["sagda.p16"].errata


@pytest.mark.parametrize("cid", NEW)
def test_verdict_fields(verdicts, cid):
    v = verdicts[cid]
    assert v.id == cid
    assert v.verdict == "confirmed", (cid, v.statistic, v.evidence.get("reason"))
    assert v.statistic is not None and math.isfinite(v.statistic)
    assert v.predicted is not None and v.tolerance is not None
    assert v.evidence and v.figure is not None and v.figure.series
    j = v.as_json()
    assert j["id"] == cid
    if v.config:
        assert set(v.config) == {"algorithm", "problem", "set", "rounds", "seeds", "seed"}


def test_bound_claims_evidence(verdicts):
    v = verdicts["sagda.p9d"]
    det, het = v.evidence["runs"]
    # m = M, σ = σ_G = 0: printed and corrected coincide; m < M: ψ4 doubles, L_f/100 → L_f/10
    assert det["printed_vs_corrected"]["corrected/printed"] == pytest.approx(1.0)
    diff = het["printed_vs_corrected"]["terms_that_differ"]
    assert set(diff) == {"statistical (x)", "sampling variance psi_4"}
    assert diff["sampling variance psi_4"]["corrected"] == pytest.approx(
        2 * diff["sampling variance psi_4"]["printed"])
    for r in v.evidence["runs"]:
        assert r["sagda.thm2"]["conditions_hold"] and 0 < r["sagda.thm2"]["ratio"] < 1
    w = verdicts["sagda.p16"]
    pr, co = w.evidence["runs"]
    assert pr["sagda.thm1.opt1"]["conditions_hold"]
    assert co["sagda.thm1.opt1.corrected"]["conditions_hold"]
    assert co["gamma_x"] < pr["gamma_x"]  # corrected a_2 (Lemma 5) shrinks the admissible steps


@pytest.mark.parametrize("cid", NEW)
def test_perturbed_prediction_refuted_same_numbers(verdicts, cid):
    v = BY_ID[cid].run(profile="quick", seed=0, **PERTURB[cid])
    assert v.verdict == "refuted", (cid, v.statistic, v.predicted)
    assert v.statistic == verdicts[cid].statistic  # same seed → same numbers
