"""The README's results block is generated from the report's verdicts, so it cannot drift:
it must equal what ``reports/verdicts.json`` gives, a report into the checkout's ``reports/``
rewrites it (and nothing else of the README), and a report anywhere else leaves it alone.
``fedbounds report --readme PATH`` rewrites the block of another README, ``--no-readme``
none; a README without the markers is refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from fedbounds.app import complexity_rows, report
from fedbounds.app.cli import app
from fedbounds.app.report import (
    RESULTS_BEGIN,
    RESULTS_END,
    default_readme,
    results_block,
    update_readme,
)
from fedbounds.verify import catalog
from fedbounds.verify.claim import FigureSpec, Measurement, UpperBound, claim

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


# ---- fedbounds report --readme / --no-readme ------------------------------------------------------

STALE = f"# project\nintro\n{RESULTS_BEGIN}\nstale ≥ 38\n{RESULTS_END}\nouttro\n"


@pytest.fixture
def one_refuted_claim(monkeypatch) -> str:
    """A single stand-in claim of proxskip (refuted: 1.5 above the bound 1) and no symbolic
    complexity derivation or findings, so that a report takes seconds."""

    @claim("proxskip.p990", title="ratio below one", prediction="ratio ≤ 1", source="test",
           provenance="paper", rule=UpperBound(1.0), figure=FigureSpec("ratio", "i", "r"))
    def measure(params, seed):
        return Measurement(1.5)

    monkeypatch.setattr(catalog, "claims", lambda: {measure.id: measure})
    monkeypatch.setattr(complexity_rows, "derive",
                        lambda theorem: SimpleNamespace(regimes=[], schedule=[]))
    monkeypatch.setattr(report, "findings", lambda theorem: [])
    return measure.id


def _report(*args: str):
    return CliRunner().invoke(app, ["report", "--paper", "proxskip", "--store", "off", *args])


def _checkout(root: Path) -> Path:
    """A folder that looks like a checkout: pyproject.toml and a README with the markers."""
    root.mkdir()
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    (root / "README.md").write_text(STALE, encoding="utf-8")
    return root


def test_report_readme_option_rewrites_that_readme(tmp_path: Path, one_refuted_claim) -> None:
    readme = tmp_path / "OTHER.md"
    readme.write_text(STALE, encoding="utf-8")
    result = _report("--out", str(tmp_path / "r"), "--readme", str(readme), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["readme"] == str(readme)
    text = readme.read_text(encoding="utf-8")
    assert "stale" not in text and text.startswith("# project\nintro\n")
    assert text.endswith(f"{RESULTS_END}\nouttro\n")
    assert f"[`{one_refuted_claim}`](reports/proxskip.html#{one_refuted_claim}) **refuted**" in text
    stored = json.loads((tmp_path / "r" / "verdicts.json").read_text(encoding="utf-8"))
    assert results_block(stored) in text


def test_report_no_readme_leaves_the_checkouts_readme(tmp_path: Path, one_refuted_claim) -> None:
    root = _checkout(tmp_path / "repo")
    result = _report("--out", str(root / "reports"), "--no-readme")
    assert result.exit_code == 0, result.output
    assert (root / "reports" / "verdicts.json").is_file()
    assert (root / "README.md").read_text(encoding="utf-8") == STALE
    # without the option the same report rewrites it
    result = _report("--out", str(root / "reports"))
    assert result.exit_code == 0, result.output
    assert "updated" in result.stdout and "README.md" in result.stdout
    assert one_refuted_claim in (root / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("content", [None, "no markers here\n"])
def test_report_refuses_a_readme_without_markers_before_running(
        tmp_path: Path, one_refuted_claim, monkeypatch, content: str | None) -> None:
    readme = tmp_path / "README.md"
    if content is not None:
        readme.write_text(content, encoding="utf-8")
    monkeypatch.setattr(catalog, "claims", lambda: pytest.fail("claims ran"))
    result = _report("--out", str(tmp_path / "r"), "--readme", str(readme))
    assert result.exit_code == 2, result.output
    assert "error: --readme:" in result.output
    assert not (tmp_path / "r").exists()
    if content is not None:
        assert readme.read_text(encoding="utf-8") == content


def test_report_readme_and_no_readme_conflict(tmp_path: Path) -> None:
    result = _report("--out", str(tmp_path / "r"), "--readme", "README.md", "--no-readme")
    assert result.exit_code == 2 and "--no-readme" in result.output
    assert not (tmp_path / "r").exists()


def test_report_help_documents_the_readme_options() -> None:
    result = CliRunner().invoke(app, ["report", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--readme" in result.output and "--no-readme" in result.output
    assert "results:begin" in result.output
