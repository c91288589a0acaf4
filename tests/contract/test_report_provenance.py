"""The report says what each refutation means: every claim's section and table row show its
provenance (and a derived claim's derivation); the index and each paper page count
refutations as "refutes the paper" (paper claims, exactly derived ones), "refutes a derived
prediction" and "refutes a conjecture"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fedbounds.app.report import write_report
from fedbounds.verify import catalog
from fedbounds.verify.claim import ClaimSpec, FigureSpec, Measurement, UpperBound, claim

# (claim id, provenance, derivation, exact, observed): the bound is 1, so observed 2 is refuted
STAND_INS = [
    ("proxskip.p911", "paper", "", False, 2.0),
    ("proxskip.p912", "derived", "x ≤ 1 follows from the stand-in theorem by Jensen", True, 2.0),
    ("proxskip.p913", "derived", "reading the stand-in bound as the rate gives x ≈ 1", False, 2.0),
    ("proxskip.p914", "derived", "reading the stand-in bound as the rate gives x ≈ 1", False, 0.5),
    ("proxskip.p915", "conjecture", "", False, 2.0),
]


def _stand_in(cid: str, provenance: str, derivation: str, exact: bool,
              observed: float) -> ClaimSpec:
    @claim(cid, title=f"stand-in {cid}", prediction="x ≤ 1", source="test",
           provenance=provenance, derivation=derivation, exact_derivation=exact,
           rule=UpperBound(1.0), perturb={"observed": 5.0}, params={"observed": observed},
           figure=FigureSpec("x", "t", "x"))
    def measure(params, seed):
        return Measurement(params["observed"])

    return measure


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, theory_once) -> Path:
    """One report of the stand-ins, read (never changed) by every test here."""
    specs = {row[0]: _stand_in(*row) for row in STAND_INS}
    out = tmp_path_factory.mktemp("provenance") / "r"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(catalog, "claims", lambda: specs)
        theory_once(patch, "proxskip")
        write_report(out, papers=["proxskip"])
    return out


def test_index_and_paper_pages_count_refutations_by_meaning(report: Path) -> None:
    index = (report / "index.html").read_text()
    words = ("Refutations — refutes the paper: 2; refutes the paper as corrected: 0; refutes a "
             "derived prediction: 1; refutes the encoding: 0; refutes a conjecture: 1; refutes "
             "an extrapolation beyond the theorem: 0.")
    assert words in index
    cells = re.sub(r"<(td|th)\b[^>]*>", r"<\1>", index)  # cell attributes are layout only
    assert "<th>refutes the paper</th>" in cells
    assert "<td>2</td><td>0</td><td>1</td><td>0</td><td>1</td><td>0</td>" in cells
    for page in ("proxskip.md", "proxskip.html"):
        assert words in (report / page).read_text(), page


def test_each_claim_shows_its_provenance_and_derivation(report: Path) -> None:
    md = (report / "proxskip.md").read_text()
    sections = {s.split("`", 2)[1]: s for s in md.split("\n### ")[1:] if s.startswith("`")}
    assert "*Provenance*: paper" in sections["proxskip.p911"]
    assert "**refuted** (refutes the paper)" in sections["proxskip.p911"]
    assert "(exact derivation)" in sections["proxskip.p912"]
    assert "follows from the stand-in theorem by Jensen" in sections["proxskip.p912"]
    assert "**refuted** (refutes the paper)" in sections["proxskip.p912"]
    assert "(not exact)" in sections["proxskip.p913"]
    assert "**refuted** (refutes a derived prediction)" in sections["proxskip.p913"]
    assert "**confirmed**" in sections["proxskip.p914"] and "refutes" not in sections[
        "proxskip.p914"].split("*Verdict*")[1].split("\n")[0]
    assert "**refuted** (refutes a conjecture)" in sections["proxskip.p915"]
    html = (report / "proxskip.html").read_text()
    assert "<td>conjecture</td>" in html and "reading the stand-in bound as the rate" in html


def test_verdicts_json_carries_the_provenance(report: Path) -> None:
    rows = json.loads((report / "verdicts.json").read_text())["claims"]
    assert {r["id"]: r["provenance"] for r in rows} == {row[0]: row[1] for row in STAND_INS}
