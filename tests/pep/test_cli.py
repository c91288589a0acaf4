"""``fedbounds pep``: the verdict with ratio, status and residuals in the table and in JSON
(Acceptance 2), the κ sweep (Acceptance 3), a plugin's model, and exit 2 naming the argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds import registry
from fedbounds.app.cli import app
from fedbounds.verify import catalog

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
runner = CliRunner()


def _json(*args: str) -> dict:
    result = runner.invoke(app, ["pep", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_table_shows_verdict_ratio_status_and_residuals():
    result = runner.invoke(app, ["pep", "proxskip.thm3.1", "--set", "gamma=1/10", "mu=1",
                                 "ell=10", "p=0.3"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    for word in ("valid", "ratio worst/theorem", "optimal", "CLARABEL", "gap",
                 "residual dual_certificate", "exact"):
        assert word in text, word


def test_json_reports_the_theorem_beside_the_worst_case():
    doc = _json("proxskip.thm3.1", "--set", "gamma=1/20", "mu=1", "ell=10", "p=1/2")
    assert doc["verdict"] == "valid" and doc["conditions_hold"]
    assert doc["theorem_value"] == pytest.approx(1 - 1 / 20, rel=1e-12)  # 1 − min{γμ, p²}
    assert doc["worst"] == pytest.approx(1 - 1 / 20 * (2 - 1 / 2), rel=1e-4)  # loose here
    assert doc["ratio"] < 0.99
    assert doc["status"] == "optimal" and doc["residual"] < 1e-5
    assert doc["model"]["kind"] == "exact"


def test_violated_outside_the_conditions_with_a_note():
    result = runner.invoke(app, ["pep", "proxskip.cor3.6", "--set", "gamma=0.15", "mu=1",
                                 "ell=10", "p=1"])
    assert result.exit_code == 0
    assert "violated" in result.stdout and "conditions fail" in result.output


def test_two_steps_of_the_fl_form():
    doc = _json("proxskip.thm4.2", "--set", "gamma=1/20", "mu=1", "ell=10", "n=2",
                "--steps", "2")
    assert doc["steps"] == 2 and doc["verdict"] == "valid"
    assert doc["theorem_value"] == pytest.approx((1 - 1 / 20) ** 2, rel=1e-12)


def test_kappa_sweep_answers_kappa_or_root_kappa():
    doc = _json("proxskip.cor3.6", "--sweep", "kappa", "--kappas", "4,16")
    slopes = {r["regime"]: r["pep_slope"] for r in doc["regimes"]}
    assert slopes["minmax"] == pytest.approx(1.0, abs=0.05)
    assert slopes["minimisation"] == pytest.approx(0.5, abs=0.1)
    table = runner.invoke(app, ["pep", "proxskip.cor3.6", "--sweep", "kappa", "--kappas", "4,16"])
    assert "scales like κ" in table.stdout and "scales like √κ" in table.stdout


@pytest.mark.parametrize(("args", "argument"), [
    (["proxskip.thm9"], "ID"),
    (["proxskip.thm3.1", "--set", "gamma=1/10", "mu=1", "ell=10", "p=0.3", "zeta=1"],
     "--set zeta"),
    (["proxskip.thm3.1", "--set", "gamma=1/10", "mu=1", "ell=10", "p=0.3", "--steps", "0"],
     "--steps"),
    (["proxskip.cor3.6", "--sweep", "gamma"], "--sweep"),
    (["proxskip.cor3.6", "--sweep", "kappa", "--kappas", "0.5"], "--kappas"),
])
def test_bad_input_exits_2_naming_the_argument(args, argument):
    result = runner.invoke(app, ["pep", *args])
    assert result.exit_code == 2, result.output
    assert f"error: {argument}" in result.output


def test_plugin_model_through_the_cli(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.setenv("FEDBOUNDS_PAPERS", "toygda")
    registry.clear_caches()
    catalog.clear_caches()
    try:
        doc = _json("gda.thm1", "--set", "gamma=1/5", "mu=1", "L=3")
    finally:
        monkeypatch.delenv("FEDBOUNDS_PAPERS")
        registry.clear_caches()
        catalog.clear_caches()
    assert doc["verdict"] == "violated" and not doc["conditions_hold"]  # γ > μ/L²
    assert doc["worst"] == pytest.approx(1 - 2 / 5 + 9 / 25, rel=1e-4)
