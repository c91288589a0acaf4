"""FedDRO claims compute their verdicts: confirmed on the quick profile, refuted when the
prediction is perturbed through ``overrides``."""

import pytest

from fedbounds.verify import catalog
from fedbounds.verify.claims import feddro as C

BY_ID = {c.id: c for c in C.CLAIMS}


def test_ids_and_discovery() -> None:
    ids = set(catalog.claims())
    for n in (1, 2, 3, 4, 5, 6, 7, 8, 10, 13, 15):
        assert f"feddro.p{n}" in ids


@pytest.mark.parametrize("cid", ["feddro.p1", "feddro.p2", "feddro.p13", "feddro.p15"])
def test_cheap_claims_confirmed(cid: str) -> None:
    v = BY_ID[cid].run("quick")
    assert v.verdict == "confirmed", v.evidence
    assert v.figure is not None and v.as_json()["id"] == cid


def test_p1_refuted_when_prediction_perturbed() -> None:
    assert BY_ID["feddro.p1"].run("quick", threshold=0.6).verdict == "refuted"
    assert BY_ID["feddro.p1"].run("quick", fixed_point_min=1.2).verdict == "refuted"


def test_p2_literal_I1_dips_below_half() -> None:
    v = BY_ID["feddro.p2"].run("quick", etas=[0.04], I_values=[1])
    lit = [r for r in v.evidence["runs"] if r["variant"] == "literal"][0]
    assert lit["min_over_rounds"] < 0.5 and lit["fixed_point"] > 1  # first step is exact
    assert v.verdict == "confirmed"


def test_p13_p15_refuted_when_perturbed() -> None:
    assert BY_ID["feddro.p13"].run("quick", predicted_all=-1.5).verdict == "refuted"
    assert BY_ID["feddro.p15"].run("quick", tolerance=1.0).verdict == "refuted"


def test_p4_fix_small() -> None:
    v = BY_ID["feddro.p4"].run("quick", etas=[0.04], T=1500)
    assert v.verdict == "confirmed" and v.evidence["max_tracking_error"] == 0.0
    assert BY_ID["feddro.p4"].run("quick", etas=[0.04], T=50).verdict == "refuted"


def test_p5_rate_small_and_refuted() -> None:
    small = {"Ts": [200, 800, 3200], "replicas": 16}
    v = BY_ID["feddro.p5"].run("quick", **small)
    assert v.verdict in ("confirmed", "inconclusive")
    assert v.evidence["ci"][0] < -0.3
    assert BY_ID["feddro.p5"].run("quick", predicted=-1.0, **small).verdict == "refuted"


def test_p8_bound_and_refuted_when_scaled() -> None:
    cfg = [{"s": 0.0, "I": 2, "R": 1}]
    v = BY_ID["feddro.p8"].run("quick", configs=cfg)
    assert v.verdict == "confirmed" and v.statistic > 10
    assert BY_ID["feddro.p8"].run("quick", configs=cfg, scale=1e-4).verdict == "refuted"


def test_p10_tracking_scales_and_refuted() -> None:
    v = BY_ID["feddro.p10"].run("quick", T=1000, replicas=6)
    assert v.verdict == "confirmed" and v.evidence["below_lemmaF4"]
    assert BY_ID["feddro.p10"].run("quick", T=1000, replicas=6, predicted_K=0.0).verdict == "refuted"


def test_unknown_override() -> None:
    with pytest.raises(ValueError):
        BY_ID["feddro.p1"].run("quick", nonsense=1)


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["feddro.p3", "feddro.p5", "feddro.p6", "feddro.p7", "feddro.p8"])
def test_quick_profile_confirmed(cid: str) -> None:
    assert BY_ID[cid].run("quick").verdict == "confirmed"
