"""The catalogues of checkable predictions: every numbered prediction of every paper is tested
by a claim, and the report counts the ones with a verdict."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from fedbounds.app.report import prediction_counts
from fedbounds.verify import catalog
from fedbounds.verify.claim import Predictions

# The catalogues number 19 (ProxSkip-VIP), 15 (SAGDA), 19 (Fed-Norm-SGDA), 15 (FedSGDA+/-M) and
# 15 (FedDRO) checkable predictions: 83 in all.
EXPECTED = {"proxskip": 19, "sagda": 15, "fednorm": 19, "fedsgda": 15, "feddro": 15}


def test_every_paper_declares_its_catalogue() -> None:
    found = {k: v.count for k, v in catalog.predictions().items() if k in EXPECTED}
    assert found == EXPECTED
    assert sum(found.values()) == 83


@pytest.mark.parametrize("paper", sorted(EXPECTED))
def test_every_numbered_prediction_has_a_claim(paper: str) -> None:
    catalogue = catalog.predictions()[paper]
    ids = [c.id for c in catalog.claims().values() if c.paper == paper]
    missing = set(range(1, catalogue.count + 1)) - catalogue.covered(ids)
    assert not missing, f"{paper}: predictions without a claim: {sorted(missing)}"


def test_claim_ids_map_to_prediction_numbers() -> None:
    catalogue = Predictions("toy", 9)
    assert catalogue.number("toy.p9c") == 9
    assert catalogue.number("toy.p1") == 1
    assert catalogue.number("toy.p10") is None  # beyond the catalogue: ours
    assert catalogue.number("toy.p0") is None
    assert catalogue.number("other.p3") is None
    assert catalogue.number("toy.px") is None
    assert catalogue.covered(["toy.p2a", "toy.p2b", "toy.p5", "toy.p12"]) == {2, 5}


@pytest.mark.parametrize("count", [-1, 1.5, True])
def test_a_count_must_be_a_natural_number(count: object) -> None:
    with pytest.raises(ValueError, match="count"):
        Predictions("toy", count)  # type: ignore[arg-type]


def _rows(verdicts: dict[str, str]) -> list[dict]:
    return [{"claim": SimpleNamespace(id=i), "v": SimpleNamespace(verdict=v)}
            for i, v in verdicts.items()]


def test_report_counts_predictions_with_a_verdict() -> None:
    count = catalog.predictions()["sagda"].count
    rows = _rows({f"sagda.p{n}": "confirmed" for n in range(2, count + 1)}
                 | {"sagda.p9a": "inconclusive", "sagda.p9b": "inconclusive",
                    "sagda.p16": "refuted"})
    got = prediction_counts("sagda", rows)
    assert got is not None
    assert got["count"] == count
    assert got["with_verdict"] == count - 1  # p1 absent; p16 is not in the catalogue
    assert got["inconclusive"] == 0  # p9 also has a confirmed claim
    only = prediction_counts("sagda", _rows({"sagda.p3": "inconclusive"}))
    assert only == {"count": count, "with_verdict": 1, "inconclusive": 1}
    assert prediction_counts("no-such-paper", rows) is None
