"""ProxSkip-VIP claims P3, P5, P7, P13–P19 (digest §8): verdict fields, quick verdicts, a
perturbed prediction is refuted, and the same seed gives the same numbers."""

from __future__ import annotations

import json
import math

import pytest

from fedbounds.verify.claims.proxskip import CLAIMS

BY_ID = {c.id: c for c in CLAIMS}
NEW = [f"proxskip.p{k}" for k in (3, 5, 7, 13, 14, 15, 16, 17, 18, 19)]


@pytest.fixture(scope="module")
def verdicts():
    return {cid: BY_ID[cid].run("quick", seed=0) for cid in NEW}


def test_new_claims_are_registered_in_order():
    ids = [c.id for c in CLAIMS]
    assert ids[-len(NEW):] == NEW
    assert len(set(ids)) == len(ids)
    for cid in NEW:
        assert BY_ID[cid].paper == "proxskip" and BY_ID[cid].prediction


def test_errata_ids_exist():
    from fedbounds.theorems import proxskip as T

    known = {e.id for t in T.THEOREMS for e in t.errata}
    for cid in NEW:
        assert set(BY_ID[cid].errata) <= known, cid
    assert "ell-kappa-L" in BY_ID["proxskip.p14"].errata


def test_verdict_fields(verdicts):
    for cid, v in verdicts.items():
        assert v.id == cid
        assert v.verdict in ("confirmed", "refuted", "inconclusive", "diverged")
        assert v.statistic is not None and math.isfinite(v.statistic)
        assert v.predicted is not None and v.tolerance is not None
        assert v.figure is not None and v.figure.series
        assert v.config and v.evidence
        assert v.seconds is not None and v.seconds < 15, (cid, v.seconds)
        json.dumps(v.as_json())


def test_quick_verdicts_confirm_the_digest(verdicts):
    assert {k: v.verdict for k, v in verdicts.items()} == {k: "confirmed" for k in verdicts}


def test_p15_reports_divergence_round(verdicts):
    runs = verdicts["proxskip.p15"].evidence["executor_runs"]
    div = [r for r in runs if r["verdict"] == "diverged"]
    assert div and all(isinstance(r["round"], int) and r["round"] > 0 for r in div)
    assert verdicts["proxskip.p15"].evidence["paper_gamma_above_derived_limit_1_over_ell"]


def test_p17_is_informative(verdicts):
    v = verdicts["proxskip.p17"]
    assert v.evidence["informative"] is True and 0 < v.statistic < 1


@pytest.mark.parametrize("cid, override", [
    ("proxskip.p3", {"predicted_scale": 1.2}),
    ("proxskip.p5", {"bound_scale": 0.1}),
    ("proxskip.p7", {"predicted_slope": 0.0}),    # "ratio flat"
    ("proxskip.p7", {"factor_coef": 2.0}),
    ("proxskip.p13", {"constant_scale": 0.5}),
    ("proxskip.p14", {"ell_scale": 0.99}),
    ("proxskip.p15", {"threshold_scale": 0.5}),   # e.g. a threshold of 1/ℓ_spec
    ("proxskip.p16", {"mu_scale": 1.01}),
    ("proxskip.p17", {"r_max": 0.5}),
    ("proxskip.p18", {"p_scale": 1.02}),
    ("proxskip.p19", {"svrg_target": 1e-40}),
])
def test_perturbed_prediction_is_refuted(cid, override):
    assert BY_ID[cid].run("quick", seed=0, **override).verdict == "refuted"


@pytest.mark.parametrize("cid", ["proxskip.p3", "proxskip.p13", "proxskip.p14"])
def test_same_seed_same_numbers(cid, verdicts):
    again = BY_ID[cid].run("quick", seed=0)
    assert again.statistic == verdicts[cid].statistic
    assert json.dumps(again.as_json()["evidence"]) == json.dumps(
        verdicts[cid].as_json()["evidence"])


def test_unknown_override_is_rejected():
    with pytest.raises(ValueError, match="unknown override"):
        BY_ID["proxskip.p18"].run("quick", seed=0, nonsense=1)
