"""CLI answers that guide (issue 14): an infeasible ``check`` explains itself, ``max-step``
prints the whole feasible set and exits 1 when it is empty, relations every instance satisfies
are refused naming the relation, a symbol the statement only asks to exist is chosen by
``max-step``, ``--version``, ``verify --fail-on``."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest
from typer.testing import CliRunner

from fedbounds import registry
from fedbounds.app import runner as runner_module
from fedbounds.app.cli import app
from fedbounds.verify import catalog
from fedbounds.verify.claim import Verdict

cli = CliRunner()
SAGDA = ["L_f=1", "mu=1", "m=10", "M=10", "eta_xg=1", "eta_yg=1", "eta_xl=0.01", "K=5"]


def run(*args: str):
    return cli.invoke(app, list(args))


def flat(text: str) -> str:
    """Rich wraps long lines at the console width: compare on collapsed whitespace."""
    return " ".join(text.split())


# -- check -----------------------------------------------------------------------------------------
def test_infeasible_check_explains_the_ratio_condition_9_forces() -> None:
    r = run("check", "sagda.thm2", "--set", *SAGDA, "eta_yl=0.05")
    assert r.exit_code == 1
    text = flat(r.stdout)
    assert "why: η_y/η_x = 5 here" in text and "(9) y-descent >= 0 forces η_y/η_x >" in text
    doc = json.loads(run("check", "sagda.thm2", "--json", "--set", *SAGDA,
                         "eta_yl=0.05").stdout)
    ratio = [e for e in doc["explanations"] if e["kind"] == "ratio"]
    # eta_y/eta_x = 0.05/0.01; 20 L_f²/μ² = 20
    assert ratio[0]["actual"] == pytest.approx(5) and ratio[0]["required"] == pytest.approx(20)


def test_feasible_check_has_no_explanation() -> None:
    doc = json.loads(run("check", "sagda.thm2", "--json", "--set", "L_f=1", "mu=1", "m=10",
                         "M=10", "eta_xg=1", "eta_yg=1", "eta_xl=0.0001", "eta_yl=0.01",
                         "K=5").stdout)
    assert doc["feasible"] and doc["explanations"] == []
    assert {r["relation"] for r in doc["relations"]} == {"μ ≤ L_f", "m ≤ M"}


def test_check_refuses_mu_above_L_f_naming_the_relation() -> None:
    values = [v for v in SAGDA if not v.startswith("L_f=")] + ["L_f=0.1", "eta_yl=0.05"]
    r = run("check", "sagda.thm2", "--set", *values)
    assert r.exit_code == 2
    err = flat(r.stderr)
    assert "error: --set:" in err and "μ ≤ L_f" in err and "L_f=1/10, mu=1" in err
    # evaluated anyway, the conditions hold there (the point: check accepted it)
    again = run("check", "sagda.thm2", "--ignore-relations", "--set", *values)
    assert again.exit_code == 0 and "violate the relation μ ≤ L_f" in flat(again.stderr)


def test_bound_refuses_m_above_M() -> None:
    inputs = registry.get("sagda.thm2").inputs()
    values = [f"{name}={dict(m=11, M=10).get(name, 1)}" for name in inputs]
    r = run("bound", "sagda.thm2", "--set", *values)
    assert r.exit_code == 2 and "m ≤ M" in flat(r.stderr) and "M=10, m=11" in flat(r.stderr)


# -- max-step --------------------------------------------------------------------------------------
def test_max_step_with_nothing_feasible_exits_1_and_says_the_set_is_empty() -> None:
    r = run("max-step", "sagda.thm2", "--vary", "eta_yl", "--set", *SAGDA)
    assert r.exit_code == 1
    assert "no feasible value" in flat(r.stdout) and "feasible set of eta_yl: ∅" in flat(r.stdout)
    doc = json.loads(run("max-step", "sagda.thm2", "--vary", "eta_yl", "--json", "--set",
                         *SAGDA).stdout)
    assert doc["value"] is None and doc["intervals"] == [] and doc["feasible_set"] == []


def test_max_step_prints_both_ends_and_the_ends_are_boundaries() -> None:
    rest = [v for v in SAGDA if not v.startswith("eta_xl=")] + ["eta_xl=0.0001"]
    r = run("max-step", "sagda.thm2", "--vary", "eta_yl", "--set", *rest)
    assert r.exit_code == 0 and "feasible set of eta_yl: [" in flat(r.stdout)
    doc = json.loads(run("max-step", "sagda.thm2", "--vary", "eta_yl", "--json", "--set",
                         *rest).stdout)
    assert {"value", "exact", "decimal", "binding", "feasible_set"} <= set(doc)  # kept keys
    (piece,) = doc["intervals"]
    lo, hi = piece["lo"]["value"], piece["hi"]["value"]
    assert 0 < lo < hi == doc["value"]
    # the lower end passes check and a value 1e-9 below it fails (by condition (9) or (8))
    assert run("check", "sagda.thm2", "--set", *rest, f"eta_yl={lo!r}").exit_code == 0
    assert run("check", "sagda.thm2", "--set", *rest,
               f"eta_yl={lo * (1 - 1e-9)!r}").exit_code == 1


def test_max_step_of_mu_is_bounded_by_the_relation_and_shows_the_lower_end() -> None:
    rest = [v for v in SAGDA if not v.startswith(("mu=", "eta_xl="))] + ["eta_xl=0.0001",
                                                                       "eta_yl=0.01"]
    doc = json.loads(run("max-step", "sagda.thm2", "--vary", "mu", "--json", "--set",
                         *rest).stdout)
    assert doc["value"] == 1 and doc["binding"] == "relation: μ ≤ L_f"
    (piece,) = doc["intervals"]
    assert 0 < piece["lo"]["value"] < 1 and piece["lo"]["closed"] and piece["hi"]["closed"]


def test_max_step_on_a_set_of_two_pieces(tmp_path) -> None:
    file = tmp_path / "two_pieces.py"
    file.write_text(
        "import sympy as sp\n"
        "from fedbounds import POSITIVE, Condition, Notation, Theorem\n"
        "N = Notation('two')\n"
        "x = N.add('x', POSITIVE, 'step')\n"
        "THEOREMS = [Theorem(id='two.thm1', paper='two', title='two pieces', source='here',\n"
        "    statement='(x - 1)(x - 2) >= 0, x < 3', notation=N, conditions=[\n"
        "    Condition('outside (1, 2)', sp.Ge((x - 1) * (x - 2), 0), 'here'),\n"
        "    Condition('x < 3', sp.Lt(x, 3), 'here')])]\n")
    r = run("max-step", f"{file}:two.thm1", "--vary", "x")
    assert r.exit_code == 0
    assert "feasible set of x: (0, 1] ∪ [2, 3) (2 pieces: not an interval)" in flat(r.stdout)


def test_max_step_chooses_the_M_that_proxskip_only_asks_to_exist() -> None:
    given = ["mu=1", "A=1", "C=1", "B=1", "rho=1"]
    r = run("max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", *given)
    assert r.exit_code == 0 and "chose M = " in flat(r.stdout)
    doc = json.loads(run("max-step", "proxskip.thm3.1", "--vary", "gamma", "--json", "--set",
                         *given).stdout)
    chosen = doc["chosen"]["M"]
    # γ ≤ 1/(2(A + MC)) with M > B/ρ = 1: just below 1/4, and check accepts the pair
    assert 0.25 * (1 - 1e-9) <= doc["value"] < 0.25
    assert run("check", "proxskip.thm3.1", "--set", *given, f"M={chosen}",
               f"gamma={doc['decimal']}").exit_code == 0
    missing = run("check", "proxskip.thm3.1", "--set", *given, "gamma=0.1")
    assert missing.exit_code == 2 and "max-step" in flat(missing.stderr)


# -- --version, verify --fail-on, help ------------------------------------------------------------
def test_version_without_loading_sympy() -> None:
    code = ("import sys; sys.argv = ['fedbounds', '--version']\n"
            "from fedbounds.app import entry\n"
            "try:\n    entry.main()\nexcept SystemExit as e:\n    code = e.code\n"
            "print('sympy' in sys.modules, 'numpy' in sys.modules, code)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines() == [f"fedbounds {metadata.version('fedbounds')}",
                                        "False False 0"]
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"fedbounds {metadata.version('fedbounds')}"


@pytest.fixture
def fake_verdicts(monkeypatch):
    """verify without running claims: the given verdict for every task."""
    def use(kind: str) -> None:
        def run_tasks(plan, progress=None):
            return [runner_module.Result(Verdict(claim, kind, 1.0, 1.0, 0.1, {}), False)
                    for claim, _ in plan.tasks]
        monkeypatch.setattr(runner_module, "run_tasks", run_tasks)
    return use


@pytest.mark.parametrize(("verdict", "fail_on", "code"), [
    ("refuted", ["--fail-on", "refuted"], 1), ("confirmed", ["--fail-on", "refuted"], 0),
    ("refuted", [], 0), ("inconclusive", ["--fail-on", "refuted"], 0),
    ("inconclusive", ["--fail-on", "refuted", "--fail-on", "inconclusive"], 1)])
def test_verify_fail_on(fake_verdicts, verdict: str, fail_on: list[str], code: int) -> None:
    fake_verdicts(verdict)
    claim = sorted(catalog.claims())[0]
    r = run("verify", claim, "--store", "off", *fail_on)
    assert r.exit_code == code, r.output
    assert (f"1 {verdict}" in flat(r.stderr)) == (code == 1)
    as_json = run("verify", claim, "--store", "off", "--json", *fail_on)
    assert as_json.exit_code == code and json.loads(as_json.stdout)["claims"][0]["verdict"] == \
        verdict


def test_verify_fail_on_refuses_an_unknown_verdict() -> None:
    r = run("verify", "all", "--fail-on", "bad")
    assert r.exit_code == 2 and "--fail-on" in r.stderr


@pytest.mark.parametrize("command", ["check", "max-step", "bound"])
def test_help_names_exit_codes_and_ignore_relations(command: str) -> None:
    text = flat(run(command, "--help").stdout)
    assert "Exit codes: 0" in text and "2 bad input" in text and "--ignore-relations" in text
