"""The README's results block is generated from the report's verdicts, so it cannot drift:
it must equal what ``reports/verdicts.json`` gives, a report into the checkout's ``reports/``
rewrites it (and nothing else of the README), and a report anywhere else leaves it alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fedbounds.app.report import (
    RESULTS_BEGIN,
    RESULTS_END,
    default_readme,
    results_block,
    update_readme,
)

ROOT = Path(__file__).resolve().parents[2]


def _verdicts(*pairs: tuple[str, str]) -> dict:
    return {"claims": [{"id": cid, "verdict": verdict, "statistic": 1.5, "predicted": "<= 1",
                        "provenance": "paper"} for cid, verdict in pairs]}


def test_readme_block_matches_stored_verdicts() -> None:
    stored = ROOT / "reports" / "verdicts.json"
    if not stored.is_file():
        pytest.skip("no reports/verdicts.json in this checkout (run `make report`)")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.find(RESULTS_BEGIN), readme.find(RESULTS_END)
    assert 0 <= start < end, "README.md has no results block"
    in_readme = readme[start:end + len(RESULTS_END)]
    assert in_readme == results_block(json.loads(stored.read_text(encoding="utf-8"))), (
        "README.md's results block differs from reports/verdicts.json: run `make report`")


def test_block_counts_and_lists_what_is_not_confirmed() -> None:
    block = results_block(_verdicts(("sagda.p1", "confirmed"), ("sagda.p2", "refuted"),
                                    ("feddro.p1", "inconclusive")))
    assert "| [sagda](reports/sagda.html) | 2 | 1 | 1 | 0 | 0 |" in block
    assert "| all | 3 | 1 | 1 | 1 | 0 |" in block
    assert "[`sagda.p2`](reports/sagda.html#sagda.p2) **refuted** (paper claim)" in block
    assert "predicted ≤ 1" in block and "feddro.p1" in block
    assert "sagda.p1`" not in block  # confirmed claims are only counted


def test_update_rewrites_only_the_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\nbefore\n{RESULTS_BEGIN}\nstale ≥ 38\n{RESULTS_END}\nafter\n",
                      encoding="utf-8")
    assert update_readme(readme, _verdicts(("sagda.p1", "refuted")))
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# x\nbefore\n") and text.endswith(f"{RESULTS_END}\nafter\n")
    assert "stale" not in text and "sagda.p1" in text
    assert not update_readme(readme, _verdicts(("sagda.p1", "refuted")))  # unchanged


def test_only_the_checkouts_reports_folder_rewrites_the_readme(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(f"{RESULTS_BEGIN}\n{RESULTS_END}\n", encoding="utf-8")
    assert default_readme(tmp_path / "reports") is None  # no pyproject.toml: not a checkout
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    assert default_readme(tmp_path / "reports") == tmp_path / "README.md"
    assert default_readme(tmp_path / "elsewhere") is None
    (tmp_path / "README.md").write_text("no markers\n", encoding="utf-8")
    assert default_readme(tmp_path / "reports") is None
