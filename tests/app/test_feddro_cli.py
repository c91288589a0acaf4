"""`fedbounds counterexample feddro.thm4.1` (the generic command over the declared
counterexample) and `fedbounds run` with the FedDRO algorithms: JSON and table output, bad
input, blow-ups reported as diverged."""

import json

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app

runner = CliRunner()
KEYS = {"case", "trajectory", "final", "fixed_point", "grad_sq_final", "lower_bound"}


def test_cli_counterexample_json() -> None:
    out = runner.invoke(app, ["counterexample", "feddro.thm4.1", "--case", "II", "--set", "I=2",
                              "eta=0.01", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert KEYS <= set(d) and abs(d["trajectory"][1] - 0.520164197011407) < 1e-12  # ref. table
    assert d["fixed_point"] > 1 and min(d["trajectory"]) >= 0.5
    assert d["decay"] is None and d["variant"] == "proof"
    bad = runner.invoke(app, ["counterexample", "feddro.thm4.1", "--case", "X", "--set", "I=2",
                              "eta=0.01"])
    assert bad.exit_code == 2 and "allowed I or II" in bad.output


def test_cli_counterexample_table_and_options() -> None:
    out = runner.invoke(app, ["counterexample", "feddro.thm4.1", "--case", "I", "--set", "I=2",
                              "eta=0.05"])
    assert out.exit_code == 0, out.output
    assert "FedAvg on the Theorem 4.1 instance, case I, I=2, eta=0.05" in out.output
    assert "0.71144104778" in out.output and "1.19816282007" in out.output  # x̄¹, x̄⁵⁰
    lit = runner.invoke(app, ["counterexample", "feddro.thm4.1", "--case", "I", "--set", "I=2",
                              "eta=0.1", "--variant", "literal", "--rounds", "5", "--json"])
    assert json.loads(lit.stdout)["fixed_point"] == pytest.approx(1.25996, abs=1e-5)  # §5.1


@pytest.mark.parametrize(("args", "argument"), [
    (["feddro.thm5.1", "--case", "I", "--set", "I=2", "eta=0.1"], "ID"),
    (["feddro.thm4.1", "--case", "II", "--set", "I=2", "eta=0.1", "--decay", "exp"], "--decay"),
    (["feddro.thm4.1", "--case", "I", "--set", "I=2", "eta=0.1", "--variant", "x"], "--variant"),
    (["feddro.thm4.1", "--case", "II", "--set", "I=2", "eta=0"], "--set eta"),
    (["feddro.thm4.1", "--case", "II", "--set", "I=2", "eta=0.1", "--rounds", "0"], "--rounds")])
def test_cli_counterexample_bad_input(args: list[str], argument: str) -> None:
    r = runner.invoke(app, ["counterexample", *args])
    assert r.exit_code == 2, r.output
    assert f"error: {argument}" in r.output.replace("\n", " ")
    if argument == "ID":
        assert "allowed: feddro.thm4.1" in r.output.replace("\n", " ")


def test_run_feddro_default_steps_and_blow_up() -> None:
    r = runner.invoke(app, ["run", "feddro", "--problem", "feddro-p1", "--set", "T=7",
                            "--rounds", "7", "--seeds", "2", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["config"]["eta"] == pytest.approx((2 / 7) ** 0.5)  # √(|b|K/T), Theorem 5.1
    assert doc["config"]["beta"] == 1.0  # c_βη = 4B_g⁴L_f²η > 1, capped (β^t ∈ (0, 1))
    # recorded before the redesign (same seeds): avg and final ‖∇Φ‖², ‖x̄ − x*‖²
    s = doc["summary"]
    assert s["avg_grad_phi_sq"] == pytest.approx(0.058520716822441976, rel=1e-12)
    assert s["final_grad_phi_sq"] == pytest.approx(0.026670790843659153, rel=1e-12)
    assert s["final_dist_sq"] == pytest.approx(0.11260611663660289, rel=1e-12)
    assert s["communications"] == 7 and s["samples_per_client"] == 28
    r = runner.invoke(app, ["run", "feddro", "--problem", "feddro-p1", "--set", "eta=1e200",
                            "beta=0.5", "--rounds", "50", "--json"])
    s = json.loads(r.stdout)["summary"]
    assert r.exit_code == 0 and s["diverged"] is True and s["diverged_at"] == 1
    bad = runner.invoke(app, ["run", "feddro", "--problem", "feddro-p1", "--set", "I=1.5"])
    assert bad.exit_code == 2 and "error: --set I" in bad.output.replace("\n", " ")
