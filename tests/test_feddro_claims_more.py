"""FedDRO claims p9, p11, p12, p14: verdicts computed from runs (fields present, reproducible
with the same seed, flipped by a perturbed prediction)."""

import math

import pytest

from fedbounds.verify import catalog
from fedbounds.verify.claim import Verdict
from fedbounds.verify.claims import feddro as C

BY_ID = {c.id: c for c in C.CLAIMS}
# smaller grids than the quick profile so the whole file stays well under its time budget
SMALL = {
    "feddro.p9": {"T": 1000, "A_alphas": [0.5, 2.0], "invariance_T": 300,
                  "invariance_replicas": 4},
    "feddro.p11": {},
    "feddro.p12": {"dro_points": 50},
    "feddro.p14": {"etas": [0.005, 0.01, 0.02, 0.05, 0.1], "T": 600, "replicas": 100},
}
# the verdict on SMALL, and a perturbed prediction with the verdict it must produce
EXPECTED = {"feddro.p9": "refuted", "feddro.p11": "confirmed", "feddro.p12": "confirmed",
            "feddro.p14": "confirmed"}
PERTURBED = {
    "feddro.p9": ({"predicted": 4.0}, "confirmed"),  # the digest's α² is refuted; α⁴ fits
    "feddro.p11": ({"grad_coef": 5.0}, "refuted"),
    "feddro.p12": ({"bound_scale": 0.01}, "refuted"),
    "feddro.p14": ({"predicted": 0.5}, "refuted"),
}


def _check_fields(v: Verdict, cid: str) -> None:
    assert v.id == cid
    assert v.verdict in ("confirmed", "refuted", "inconclusive", "diverged")
    assert v.statistic is not None and math.isfinite(v.statistic)
    assert v.predicted is not None and v.tolerance is not None
    assert v.evidence and v.config
    assert v.figure is not None and v.figure.series
    assert v.seconds is not None
    j = v.as_json()
    assert j["id"] == cid and j["evidence"]


def _specific(cid: str, v: Verdict) -> None:
    e = v.evidence
    if cid == "feddro.p9":  # lim G_T excess ∝ α⁴, not α²; I = 1 invariant; A-knob not increasing
        assert 3.5 < v.statistic < 4.5 and e["orbit_converged"]
        assert e["I1_invariance_max_rel_dev"] <= 1e-9 and not e["knob_A_G_T_increasing"]
    elif cid == "feddro.p11":  # the erratum: printed c_β with B_g = 0.2 violates Lemma F.5
        assert e["printed_c_beta_violated"] and e["step_conditions_met"]
        assert e["printed_c_beta_small_Bg"]["max_excess"] > 1e-6
    elif cid == "feddro.p12":
        assert v.statistic <= 1 + 1e-9
        d = e["digest_references"]
        assert d["counterexample_bound"] == 8.0 and abs(d["p1_max_abs_Phi2"] - 0.5) < 1e-12
    elif cid == "feddro.p14":
        assert abs(v.statistic) <= 0.05 and e["growth_fit_abs_rel_gap_vs_eta"]["lo"] > 0


def test_ids_discovered_and_errata() -> None:
    ids = set(catalog.claims())
    for n in (9, 11, 12, 14):
        assert f"feddro.p{n}" in ids
    assert BY_ID["feddro.p11"].errata == ["lemmaF2-track-coefficient"]
    from fedbounds.theorems import feddro as TH
    known = {e.id for t in TH.THEOREMS for e in t.errata}
    for cid in SMALL:
        assert set(BY_ID[cid].errata) <= known


@pytest.mark.parametrize("cid", list(SMALL))
def test_verdict_reproducible_and_perturbed(cid: str) -> None:
    claim = BY_ID[cid]
    v = claim.run("quick", seed=0, **SMALL[cid])
    _check_fields(v, cid)
    assert v.verdict == EXPECTED[cid], v.evidence
    _specific(cid, v)
    again = claim.run("quick", seed=0, **SMALL[cid])
    ja, jb = v.as_json(), again.as_json()
    ja.pop("seconds")
    jb.pop("seconds")
    assert ja == jb  # bit-for-bit the same verdict, statistic and evidence
    over, expected = PERTURBED[cid]
    p = claim.run("quick", seed=0, **SMALL[cid], **over)
    assert p.verdict == expected and p.verdict != v.verdict


def test_p14_seed_changes_numbers() -> None:
    a = BY_ID["feddro.p14"].run("quick", seed=0, etas=[0.01, 0.1], T=300, replicas=50)
    b = BY_ID["feddro.p14"].run("quick", seed=1, etas=[0.01, 0.1], T=300, replicas=50)
    assert a.statistic != b.statistic


def test_unknown_override_rejected() -> None:
    with pytest.raises(ValueError):
        BY_ID["feddro.p12"].run("quick", nonsense=1)
