"""Every encoded theorem's constants are pinned (issue #10): conditions, bound terms, derived
quantities, schedules, costs and claimed orders evaluated exactly at three reference points must
equal the golden files ``tests/data/snapshots/<paper>.snapshot`` (written by ``fedbounds
snapshot``); the derived complexity orders in the same files are compared in the slow profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from fedbounds import registry
from fedbounds.snapshot import Entry, differences, read, reference_points, snapshot
from fedbounds.testing import check_snapshot

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "snapshots"
PAPERS = sorted(registry.papers())


def _theorems(paper: str):
    return [t for t in registry.theorems().values() if t.paper == paper]


@pytest.mark.parametrize("paper", PAPERS)
def test_theorem_values_match_the_golden_file(paper, monkeypatch):
    monkeypatch.delenv("FEDBOUNDS_UPDATE_SNAPSHOT", raising=False)
    check_snapshot(_theorems(paper), GOLDEN / f"{paper}.snapshot")


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_derived_complexity_orders_match_the_golden_file(paper, monkeypatch):
    monkeypatch.delenv("FEDBOUNDS_UPDATE_SNAPSHOT", raising=False)
    check_snapshot(_theorems(paper), GOLDEN / f"{paper}.snapshot", orders=True)


def test_every_theorem_is_in_the_golden_file():
    pinned = {key[0] for path in GOLDEN.glob("*.snapshot") for key in read(path)}
    assert set(registry.theorems()) <= pinned


def test_a_changed_constant_is_named(tmp_path):
    """A planted change (the Cor. 3.6 schedule γ = 1/(2ℓ) turned into 1/(3ℓ)) is reported with
    the theorem, the item and the point."""
    thm = registry.get("proxskip.cor3.6")
    golden = tmp_path / "golden"
    check_snapshot([thm], golden)
    gamma = next(s for s in thm.schedule)
    changed = type(thm)(**{**thm.__dict__, "schedule": {**thm.schedule,
                                                        gamma: thm.schedule[gamma] * 2 / 3}})
    with pytest.raises(AssertionError, match=r"proxskip.cor3.6: schedule gamma at point 1 "
                                             r"changed from"):
        check_snapshot([changed], golden)


def test_reference_points_respect_domains():
    for thm in registry.theorems().values():
        for point in reference_points(thm):
            for sym, value in point.items():
                assert thm.notation.spec(sym.name).domain.contains(value), (thm.id, sym, value)


def test_differences_report_new_and_gone_values():
    old = {("t", 1, "a"): Entry("t", 1, "a", "1.0"), ("t", 1, "b"): Entry("t", 1, "b", "2.0")}
    new = [Entry("t", 1, "a", "1.0000000001"), Entry("t", 1, "c", "3.0")]
    assert differences(old, new) == ["t: a at point 1 changed from 1.0 to 1.0000000001",
                                     "t: b at point 1 is gone", "t: c at point 1 is new (3.0)"]
    assert differences(old, [Entry("t", 1, "a", "1.0"), Entry("t", 1, "b", "2.0")]) == []
    assert snapshot(registry.get("proxskip.thm3.1"))  # produces values
