"""The tutorial's theorem (docs/gda_theorem.py, a file outside the package) through the file
option of every theory command (issue #10 acceptance 1). Theorem 1 there is textbook GDA:
γ ≤ μ/L² gives ‖z_T − z*‖² ≤ (1 − γμ)^T‖z_0 − z*‖², so T_ε = O(κ² log 1/ε)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds import registry
from fedbounds.app.cli import app

FILE = str(Path(__file__).resolve().parents[2] / "docs" / "gda_theorem.py")


@pytest.fixture
def cli():
    registry.clear_caches()
    yield CliRunner()
    registry.clear_caches()


def _run(cli, *args: str) -> tuple[int, dict | str]:
    result = cli.invoke(app, list(args))
    try:
        return result.exit_code, json.loads(result.stdout)
    except json.JSONDecodeError:
        return result.exit_code, result.output


@pytest.mark.parametrize(("mu", "L"), [("1", "3"), ("3/10", "7"), ("1e-3", "2")])
def test_max_step_is_mu_over_L_squared(cli, mu, L):
    code, doc = _run(cli, "max-step", f"{FILE}:gda.thm1", "--vary", "gamma", "--set",
                     f"mu={mu}", f"L={L}", "--json")
    assert code == 0
    expected = float(eval(mu)) / float(L) ** 2  # noqa: S307  (the test's own literals)
    assert doc["value"] == pytest.approx(expected, rel=1e-12)
    assert doc["binding"] == "gamma <= mu/L^2"


def test_check_is_exact_at_the_boundary_and_fails_beyond(cli):
    code, doc = _run(cli, "check", f"{FILE}:gda.thm1", "--set", "gamma=1/9", "mu=1", "L=3",
                     "--json")
    assert code == 0 and doc["feasible"] is True
    code, doc = _run(cli, "check", "--theorems", FILE, "gda.thm1", "--set", "gamma=1/8", "mu=1",
                     "L=3", "--json")
    assert code == 1 and doc["feasible"] is False


def test_bound_is_the_contraction(cli):
    code, doc = _run(cli, "bound", f"{FILE}:gda.thm1", "--set", "gamma=1/9", "mu=1", "L=3",
                     "T=50", "D_0=2", "--json")
    assert code == 0
    assert doc["value"] == pytest.approx(2 * (1 - 1 / 9) ** 50, rel=1e-12)


def test_complexity_is_kappa_squared_log(cli):
    code, doc = _run(cli, "complexity", "--theorems", FILE, "gda.thm1", "--json")
    assert code == 0
    (row,) = doc["regimes"][0]["orders"]
    assert row["cost"] == "iterations" and row["verdict"] == "agree"
    assert row["derived_order"] == "L**2*log(1/epsilon)/mu**2"  # κ² log(1/ε) with κ = L/μ


@pytest.mark.parametrize(("body", "message"), [
    ("import not_a_module_anywhere\n", "not_a_module_anywhere"),
    ("THEOREMS = []\n", "defines no THEOREMS"),
    ("THEOREMS = [1]\n", "not a fedbounds Theorem")])
def test_a_bad_theorem_file_exits_2_naming_it(cli, tmp_path, body, message):
    bad = tmp_path / "mine.py"
    bad.write_text(body)
    code, out = _run(cli, "check", f"{bad}:x.thm1", "--set", "a=1")
    assert code == 2 and "mine.py" in out and message in " ".join(out.split())
