"""Claims of sagda / fednorm / fedsgda compute their verdicts (issue #5 acceptance 2–4): the
objective-mismatch limits are measured, and a perturbed prediction flips a verdict to refuted."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.verify import catalog
from fedbounds.verify.claims import fednorm, fedsgda, sagda


def test_mismatch_local_sgda_and_fednorm_fixed_points():
    v = fednorm.p1()
    assert v.verdict == "confirmed"
    dw, dp = np.array(v.evidence["dist_to_z_w"]), np.array(v.evidence["dist_to_z_p"])
    assert np.all(np.diff(dw) < 0) and dw[-1] < 0.05 * dp[-1]  # → z*(w), not z*(p)
    assert abs(dp[-1] - v.evidence["gap_z_w_z_p"]) < 0.05 * v.evidence["gap_z_w_z_p"]
    v2 = fednorm.p2a()
    assert v2.verdict == "confirmed"
    assert v2.evidence["dist_to_z_p"][-1] < 0.05 * v2.evidence["dist_to_z_w"][-1]
    assert v.figure is not None and v.config["algorithm"] == "local-sgda"


@pytest.mark.parametrize("run, bad", [(fednorm.p1, 2.0), (fednorm.p2a, 0.5), (fednorm.p4, 2.0),
                                      (lambda **k: sagda.p9(part="b", **k), 2.0),
                                      (lambda **k: fednorm.p9(part="a", **k), 2.0)])
def test_perturbed_prediction_is_refuted(run, bad):
    assert run().verdict == "confirmed"
    assert run(predicted=bad).verdict == "refuted"


def test_exact_identity_claims_and_perturbation():
    v = sagda.p2()
    assert v.verdict == "confirmed" and v.statistic < 1e-12
    assert sagda.p2(predicted=-1.0).verdict == "refuted"
    v = fedsgda.p1()
    assert v.verdict == "confirmed"
    assert fednorm.p3().verdict == "confirmed"


def test_pp_floor_profile_exact():
    v = fednorm.p9(part="b")
    assert v.verdict == "confirmed" and v.evidence["zero_at_P_eq_n"]
    assert fednorm.p9(part="b", predicted=0.5).verdict == "refuted"


def test_catalog_lists_minmax_claims_algorithms_problems():
    ids = set(catalog.claims())
    for cid in ("sagda.p2", "sagda.p6a", "sagda.p7", "sagda.p8a", "sagda.p8b", "sagda.p9a", "sagda.p10",
                "fednorm.p1", "fednorm.p2a", "fednorm.p3", "fednorm.p4", "fednorm.p9a", "fednorm.p10a",
                "fednorm.p11", "fedsgda.p1", "fedsgda.p6", "fedsgda.p7"):
        assert cid in ids
    algs = catalog.algorithms()
    for a in ("fsgda", "sagda1", "sagda2", "local-sgda", "fednorm-sgda", "fedsgda-plus", "fedsgda-m"):
        assert a in algs
    prob = catalog.problems()["minmax-quadratic"]
    g = prob.make({"M": 4.0}, 0)
    doc = algs["fsgda"].run(g, {"K": 2.0, "m": 2.0}, 20, 2, 0)
    assert set(doc) >= {"constants", "config", "metrics", "summary"}
    assert len(doc["metrics"]["grad_phi_sq"]) == 21
    assert doc["summary"]["communications"] == 20


@pytest.mark.slow
def test_sagda_p8_refutes_option2_bound_for_partial_participation():
    assert sagda.p8(part="a").verdict == "refuted"
    assert sagda.p8(part="b").verdict == "confirmed"
