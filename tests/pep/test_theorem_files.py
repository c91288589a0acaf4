"""``fedbounds pep --theorems FILE.py``: a user's file defines a theorem and its PEP model
(``PEP_MODELS``), as the tutorial's docs/gda_pep.py does for docs/gda_theorem.py. The
tutorial's command is run as printed there; bad files exit 2 naming the file."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds import registry
from fedbounds.verify import catalog, pep

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
PEP_FILE = ROOT / "docs" / "gda_pep.py"
THEOREM_FILE = ROOT / "docs" / "gda_theorem.py"


@pytest.fixture
def cli(monkeypatch):
    """A CLI runner in the repository root, with no theorem or model files loaded."""
    from fedbounds.app.cli import app

    monkeypatch.chdir(ROOT)
    registry.clear_caches()
    catalog.clear_caches()
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args))

    yield invoke
    registry.clear_caches()
    catalog.clear_caches()


def _tutorial_example() -> tuple[list[str], str]:
    """The `$ fedbounds pep --theorems …` command of the tutorial and its output line."""
    lines = TUTORIAL.read_text().splitlines()
    (index,) = [i for i, line in enumerate(lines)
                if line.startswith("$ fedbounds pep --theorems docs/gda_pep.py")]
    return shlex.split(lines[index])[2:], lines[index + 1]


def test_the_tutorial_example_prints_what_the_tutorial_shows(cli):
    args, shown = _tutorial_example()
    result = cli(*args)
    assert result.exit_code == 0, result.output
    numbers = re.findall(r"\d+\.\d+|\d+", shown)
    assert len(numbers) == 3, shown  # worst case, theorem, ratio
    for number in numbers:
        assert number in result.stdout, (number, result.stdout)
    assert "valid" in shown and "valid" in result.stdout


def test_the_tutorial_values_are_the_closed_forms(cli):
    """γ = 1/10, μ = 1, L = 3: worst 1 − 2γμ + γ²L² (rotation instance, tight for two points),
    theorem 1 − γμ; valid since γ ≤ μ/L² = 1/9."""
    args, _ = _tutorial_example()
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    gamma, mu, lipschitz = 0.1, 1.0, 3.0
    assert doc["values"] == {"gamma": gamma, "mu": mu, "L": lipschitz}
    assert doc["worst"] == pytest.approx(1 - 2 * gamma * mu + gamma**2 * lipschitz**2, rel=1e-4)
    assert doc["theorem_value"] == pytest.approx(1 - gamma * mu, rel=1e-12)
    assert doc["verdict"] == "valid" and doc["conditions_hold"]


@pytest.mark.parametrize("args", [
    ["docs/gda_pep.py:gda.thm1"],
    ["--theorems", "docs/gda_theorem.py", "--theorems", "docs/gda_pep.py", "gda.thm1"],
    ["--theorems", "docs/gda_pep.py", "--theorems", "docs/gda_theorem.py", "gda.thm1"],
])
def test_file_id_form_and_either_order_of_two_files(cli, args):
    result = cli("pep", *args, "--set", "gamma=1/5", "mu=1", "L=3", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["verdict"] == "violated" and not doc["conditions_hold"]  # γ = 1/5 > μ/L² = 1/9
    assert doc["worst"] == pytest.approx(1 - 2 / 5 + 9 / 25, rel=1e-4)


def test_the_theorem_file_alone_has_no_model_and_says_so(cli):
    result = cli("pep", "--theorems", "docs/gda_theorem.py", "gda.thm1", "--set", "gamma=0.1",
                 "mu=1", "L=3")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "error: ID: no PEP model for 'gda.thm1'" in text
    assert "docs/gda_theorem.py defines no PepModel" in text


def test_the_python_api_loads_the_model_and_solves_it(cli):
    (model,) = pep.load_file(PEP_FILE)
    assert model.theorem == "gda.thm1" and pep.models()["gda.thm1"] is model
    result = pep.solve("gda.thm1", {"gamma": 0.1, "mu": 1, "L": 3})
    assert result.verdict == "valid"
    pep.clear_caches()
    registry.clear_caches()
    assert "gda.thm1" not in pep.models()


_HEADER = f"""
from pathlib import Path
from fedbounds import load_file
from fedbounds.verify.pep import PepModel, PepParam
THEOREMS = load_file({str(THEOREM_FILE)!r})

def values(v, steps):
    return dict(v)

def build(v, steps):
    raise AssertionError("never solved")

def model(theorem):
    return PepModel(theorem=theorem, title="t", method="m", operator_class="c", measure="m",
                    parameters={{"gamma": PepParam("γ")}}, theorem_values=values, build=build)
"""


@pytest.mark.parametrize(("body", "message"), [
    ("PEP_MODELS = [1]\n", "PEP_MODELS holds 1, not a PepModel"),
    ("PEP_MODELS = model('gda.thm1')\n", "PEP_MODELS must be a list of PepModel"),
    ("PEP_MODELS = [model('gda.thm9')]\n", "PEP model for unknown theorem 'gda.thm9'"),
    ("PEP_MODELS = [model('gda.thm1'), model('gda.thm1')]\n", "two PEP models for 'gda.thm1'"),
    ("PEP_MODELS = [model('proxskip.thm3.1')]\n",
     "'proxskip.thm3.1' already has a PEP model"),
])
def test_a_bad_model_file_exits_2_naming_it(cli, tmp_path, body, message):
    bad = tmp_path / "mine_pep.py"
    bad.write_text(_HEADER + body)
    result = cli("pep", "--theorems", str(bad), "gda.thm1", "--set", "gamma=0.1")
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "error: --theorems:" in text and "mine_pep.py" in text and message in text


def test_without_pep_models_every_bound_model_counts(cli, tmp_path):
    mine = tmp_path / "mine_pep.py"
    mine.write_text(_HEADER + "FIRST = model('gda.thm1')\n")
    (found,) = pep.load_file(mine)
    assert found.theorem == "gda.thm1" and pep.model("gda.thm1") is found
