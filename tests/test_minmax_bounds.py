"""Bound validity and rate claims of issue #5 (fedsgda.p3, fedsgda.p5a/b, fednorm.p20): verdicts
are computed with their fields, step sizes and bounds come from the theorem objects, and a
perturbed prediction flips the verdict."""

from __future__ import annotations

from fedbounds.verify import catalog
from fedbounds.verify.claims import fednorm, fedsgda

FIELDS = ("id", "verdict", "statistic", "predicted", "tolerance", "evidence", "config")


def _fields(v):
    d = v.as_json()
    assert all(k in d for k in FIELDS)
    assert v.figure is not None and v.figure.series
    assert set(v.config) >= {"algorithm", "problem", "set", "rounds", "seeds", "seed"}


def test_fedsgda_p3_bound_holds_and_perturbed_bound_is_refuted():
    v = fedsgda.p3()
    _fields(v)
    assert v.verdict == "confirmed" and 0 < v.statistic < 1
    runs = v.evidence["runs"]
    assert {r["reading"] for r in runs} == {"R1", "R2"}
    assert all(r["conditions_hold"] and r["eta_binding"] for r in runs)
    assert fedsgda.p3(bound_scale=1e-3).verdict == "refuted"


def test_fedsgda_p5b_slope_and_perturbation():
    v = fedsgda.p5(part="b")
    _fields(v)
    assert v.verdict == "confirmed"
    fit = v.evidence["fit"]
    assert fit["lo"] <= v.statistic <= fit["hi"]
    assert fedsgda.p5(part="b", predicted_slope=-1.0).verdict == "refuted"


def test_fednorm_p20_uses_max_step_and_reports_ratio():
    v = fednorm.p20()
    _fields(v)
    ev = v.evidence
    assert ev["conditions_hold"] and set(ev["steps"]) == {"gamma_sy", "gamma_sx", "eta_cy", "eta_cx"}
    assert abs(v.statistic - ev["observed"]["value"] / ev["bound"]) < 1e-12
    # the encoded O(·) bound (constants 1) is exceeded (observed/bound ≈ 38): refuted as encoded;
    # a bound scaled past the measured ratio is confirmed, so the verdict follows the statistic
    assert v.verdict == ("refuted" if ev["lower_ratio"] > 1 else "confirmed")
    assert fednorm.p20(bound_scale=10 * v.statistic).verdict == "confirmed"


def test_new_claims_are_listed_and_ours_is_marked():
    cl = catalog.claims()
    for cid in ("fedsgda.p3", "fedsgda.p5a", "fedsgda.p5b", "fednorm.p20"):
        assert cid in cl
    assert cl["fednorm.p20"].own
