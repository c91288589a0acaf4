"""`fedbounds run` / `counterexample` / `verify`: JSON shapes (DESIGN "Runs"), bad input, blow-ups."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app

runner = CliRunner()


def test_run_json_shape_and_reproducible() -> None:
    args = ["run", "proxskip-gda-fl", "--problem", "proxskip-g-norm", "--set", "n=3", "s=2",
            "--rounds", "40", "--seeds", "2", "--seed", "7", "--json"]
    a, b = runner.invoke(app, args), runner.invoke(app, args)
    assert a.exit_code == 0, a.output
    doc = json.loads(a.stdout)
    assert set(doc) >= {"algorithm", "problem", "constants", "config", "metrics", "summary"}
    assert doc["algorithm"] == "proxskip-gda-fl" and doc["problem"] == "proxskip-g-norm"
    assert len(doc["metrics"]["dist_sq"]) >= 2
    strip = lambda d: {k: v for k, v in d["summary"].items() if k != "seconds"}  # noqa: E731
    assert strip(doc) == strip(json.loads(b.stdout))  # same seed, same numbers
    assert doc["metrics"] == json.loads(b.stdout)["metrics"]


def test_run_blow_up_is_diverged_with_round_not_a_crash() -> None:
    r = runner.invoke(app, ["run", "proxskip-gda-fl", "--problem", "proxskip-g-norm", "--set",
                            "gamma=100", "--rounds", "60", "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)["summary"]
    assert s["diverged"] is True and isinstance(s["diverged_at"], int) and s["diverged_at"] < 60
    assert "NaN" not in r.stdout and "Infinity" not in r.stdout


@pytest.mark.parametrize("args, argument", [
    (["run", "nope", "--problem", "proxskip-g-norm"], "ALGORITHM"),
    (["run", "proxskip-gda-fl", "--problem", "nope"], "--problem"),
    (["run", "proxskip-gda-fl", "--problem", "proxskip-g-norm", "--set", "foo=1"], "--set foo"),
    (["run", "proxskip-gda-fl", "--problem", "proxskip-g-norm", "--set", "n=-3"], "--set n"),
    (["run", "proxskip-gda-fl", "--problem", "proxskip-g-norm", "--rounds", "0"], "--rounds"),
    (["counterexample", "feddro.thm4.1", "--case", "III", "--set", "I=2", "eta=0.01"], "--case"),
    (["counterexample", "feddro.thm4.1", "--case", "II", "--set", "I=5/2", "eta=0.01"],
     "--set I"),
    (["counterexample", "feddro.thm4.1", "--case", "II", "--set", "I=2"], "--set"),
    (["counterexample", "proxskip.thm3.1", "--case", "II", "--set", "I=2", "eta=0.1"], "ID"),
    (["verify", "nonexistent"], "CLAIM"),
    (["report", "--paper", "nope"], "--paper"),
])
def test_bad_input_exits_2_naming_the_argument(args: list[str], argument: str) -> None:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert f"error: {argument}" in r.output.replace("\n", " ")


def test_counterexample_json_shape() -> None:
    r = runner.invoke(app, ["counterexample", "feddro.thm4.1", "--case", "II", "--set", "I=2",
                            "eta=0.01", "--rounds", "30", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert set(doc) >= {"case", "trajectory", "final", "fixed_point", "grad_sq_final",
                        "lower_bound"}
    assert len(doc["trajectory"]) == 31 and doc["trajectory"][0] == 0.5
    assert abs(doc["lower_bound"] - 1 / 17) < 1e-15  # feddro.txt Theorem 4.1: ‖∇Φ‖² ≥ 1/17
