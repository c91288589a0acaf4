"""A sixth paper added without touching fedbounds (issue #9 acceptance 5).

The test paper ``tests/plugins/toygda`` (one theorem, one problem, one algorithm, one claim) is
made importable and named in ``FEDBOUNDS_PAPERS``; ``list``, ``check``/``max-step``, ``run``,
``verify`` and the report must pick it up. The step size μ/L² is Theorem 1's condition
(textbook GDA; see ``toygda/theorems.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds import registry
from fedbounds.app.cli import app
from fedbounds.verify import catalog

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


@pytest.fixture
def toygda(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.setenv("FEDBOUNDS_PAPERS", "toygda")
    registry.clear_caches()
    catalog.clear_caches()
    yield CliRunner()
    monkeypatch.delenv("FEDBOUNDS_PAPERS")
    registry.clear_caches()
    catalog.clear_caches()


def _json(runner: CliRunner, *args: str) -> dict:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_list_shows_every_layer_of_the_plugin(toygda):
    listing = _json(toygda, "list", "--json")
    assert "gda.thm1" in {t["id"] for t in listing["theorems"]}
    assert "gda.p1" in {c["id"] for c in listing["claims"]}
    assert "toy-gda" in {a["id"] for a in listing["algorithms"]}
    assert "toy-rotation" in {p["id"] for p in listing["problems"]}


def test_theory_commands_work_on_the_plugin_theorem(toygda):
    doc = _json(toygda, "max-step", "gda.thm1", "--vary", "gamma", "--set", "mu=1", "L=3",
                "T=10", "D_0=1", "--json")
    assert doc["value"] == pytest.approx(1 / 9, rel=1e-12)  # μ/L²
    result = toygda.invoke(app, ["check", "gda.thm1", "--set", "gamma=1/8", "mu=1", "L=3",
                                 "T=10", "D_0=1"])
    assert result.exit_code == 1  # 1/8 > 1/9: infeasible


def test_run_and_verify_the_plugin_claim(toygda):
    run = _json(toygda, "run", "toy-gda", "--problem", "toy-rotation", "--rounds", "3", "--json")
    assert run["config"]["gamma"] == pytest.approx(1 / 5)  # μ/L² with L² = 1 + 2²
    d = run["metrics"]["dist_sq"]
    assert d[1] / d[0] == pytest.approx(1 - 1 / 5, rel=1e-12)  # ‖I − γJ‖² = 1 − γμ here
    doc = _json(toygda, "verify", "gda", "--json")
    (verdict,) = doc["claims"]
    assert verdict["id"] == "gda.p1" and verdict["verdict"] == "confirmed"
    assert verdict["statistic"] == pytest.approx(1.0, rel=1e-9)  # the bound is attained


def test_the_report_has_a_page_for_the_plugin(toygda, tmp_path):
    result = toygda.invoke(app, ["report", "--paper", "gda", "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "r" / "gda.md").read_text()
    assert "gda.p1" in page and "confirmed" in page
    assert "gda.html" in (tmp_path / "r" / "index.html").read_text()


def test_a_broken_plugin_is_named(monkeypatch, tmp_path):
    (tmp_path / "brokenpaper").mkdir()
    (tmp_path / "brokenpaper" / "__init__.py").write_text("")
    (tmp_path / "brokenpaper" / "theorems.py").write_text("import not_a_module_at_all\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FEDBOUNDS_PAPERS", "brokenpaper")
    registry.clear_caches()
    try:
        result = CliRunner().invoke(app, ["list"])
    finally:
        monkeypatch.delenv("FEDBOUNDS_PAPERS")
        registry.clear_caches()
    assert result.exit_code == 2
    assert "brokenpaper" in result.output and "not_a_module_at_all" in result.output


def _distribution(root: Path, name: str, package: str) -> None:
    """An installed distribution as importlib.metadata sees it: a dist-info folder on sys.path
    declaring ``package`` under the ``fedbounds.papers`` entry-point group."""
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[fedbounds.papers]\n{name} = {package}\n")


def test_a_paper_declared_by_entry_point_is_discovered(monkeypatch, tmp_path):
    _distribution(tmp_path, "toygda-dist", "toygda")
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("FEDBOUNDS_PAPERS", raising=False)
    registry.clear_caches()
    catalog.clear_caches()
    try:
        runner = CliRunner()
        listing = _json(runner, "list", "--json")
        assert "gda.thm1" in {t["id"] for t in listing["theorems"]}
        assert "toy-gda" in {a["id"] for a in listing["algorithms"]}
        (verdict,) = _json(runner, "verify", "gda", "--json")["claims"]
        assert verdict["verdict"] == "confirmed"
    finally:
        registry.clear_caches()
        catalog.clear_caches()


def test_a_broken_entry_point_plugin_exits_2_naming_it(monkeypatch, tmp_path):
    _distribution(tmp_path, "broken-dist", "no_such_paper_package")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("FEDBOUNDS_PAPERS", raising=False)
    registry.clear_caches()
    try:
        result = CliRunner().invoke(app, ["show", "proxskip.thm3.1"])
    finally:
        registry.clear_caches()
    assert result.exit_code == 2
    assert "no_such_paper_package" in result.output
