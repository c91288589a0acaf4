"""Theorem 4.1 counterexample: exact round maps vs the digest's reference table (feddro.md §5.1,
mpmath 30 digits), fixed points, generalisations and input validation."""

# ruff: noqa: E741  (I is the paper's number of local steps, L166)

import json

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.errors import BadInput
from fedbounds.problems import feddro as P
from fedbounds.verify.algorithms import feddro as A

# digest §5.1 table (I = 2, x̄⁰ = 0.5): (x̄², x̄⁴, x̄⁶), fixed point
TABLE = {
    ("II", 0.01): ((0.520164197011407, 0.539921023081538, 0.559261718186647), 1.07045122681),
    ("II", 0.04): ((0.582087142912588, 0.657754775779623, 0.726494614852483), 1.11742089652),
    ("II", 0.999 / 8): ((0.766818741112169, 0.974946547830935, 1.11406181316864), 1.26246639326),
    ("I", 0.01): ((0.544479088643556, 0.587418451060444, 0.628683382707421), 1.17372814717),
    ("I", 0.999 / 22): ((0.693335602691226, 0.847573111628880, 0.959445523072731), 1.19495953798),
}
KEYS = {"case", "trajectory", "final", "fixed_point", "grad_sq_final", "lower_bound"}


@pytest.mark.parametrize(("case", "eta"), list(TABLE))
def test_first_rounds_match_table(case: str, eta: float) -> None:
    d = A.counterexample(case, 2, eta, rounds=3)
    assert KEYS <= set(d)
    ref, fp = TABLE[(case, eta)]
    assert d["trajectory"][0] == 0.5
    for got, want in zip(d["trajectory"][1:], ref, strict=True):
        assert abs(got - want) < 1e-12
    assert d["fixed_point"] == pytest.approx(fp, abs=1e-10)
    assert d["lower_bound"] == pytest.approx(1 / 17)  # (1/2)²/((1/2)² + 4), L481/L531


@pytest.mark.parametrize("case", ["I", "II"])
@pytest.mark.parametrize("I", [1, 2, 3, 4, 8])
def test_fixed_point_and_lower_bound(case: str, I: int) -> None:
    d = A.counterexample(case, I, 0.01, rounds=int(300 / 0.01 / I))
    if case == "II" and I == 1:  # no local steps: exact gradient descent on Φ → x* = 0
        assert abs(d["final"]) < 1e-6 and d["fixed_point"] == pytest.approx(0.0, abs=1e-12)
        return
    assert min(d["trajectory"]) >= 0.5  # never below 0.5 at a communication round
    assert d["fixed_point"] > 1 and abs(d["final"] - d["fixed_point"]) < 1e-6
    assert d["grad_sq_final"] >= 1 / 17


def test_eta0_limits_digest() -> None:
    # digest §5.1: Case I root of 12x⁴ − 72x³ + 171x² − 172x + 60 in (1, 2); Case II ∇Φ + (I−1)∇F
    x = A.fixed_point_eta0("I", 1)
    assert x == pytest.approx(1.16866733425053, abs=1e-12)
    assert abs(12 * x**4 - 72 * x**3 + 171 * x**2 - 172 * x + 60) < 1e-10
    for I, ref in ((2, 1.05534124344369), (3, 1.10825396496442), (4, 1.12739351540154),
                   (8, 1.15043532697376)):
        assert A.fixed_point_eta0("II", I) == pytest.approx(ref, abs=1e-12)


def test_decaying_steps_and_literal_variant() -> None:
    d2 = A.counterexample("II", 2, 0.04, rounds=20000, decay="sqrt")
    d1 = A.counterexample("I", 2, 0.04, rounds=20000, decay="sqrt")
    assert min(d2["trajectory"]) >= 0.5 and min(d1["trajectory"]) >= 0.5
    assert d2["final"] == pytest.approx(1.0553, abs=2e-3) and d2["fixed_point"] == d2["fixed_point_eta0"]
    assert d1["final"] == pytest.approx(1.1687, abs=2e-3)
    lit = [A.counterexample("I", 2, e, rounds=5, variant="literal")["fixed_point"]
           for e in (0.001, 0.01, 0.1)]
    assert lit == pytest.approx([1.17013, 1.18273, 1.25996], abs=1e-5)  # digest §5.1


def test_simulator_matches_round_map() -> None:
    prob = P.make_counterexample({})
    for case, variant in (("II", "proof"), ("I", "proof"), ("I", "literal")):
        r = A.simulate(prob, "fedavg-co", 12, I=3, eta=0.02, case=case, variant=variant)
        d = A.counterexample(case, 3, 0.02, rounds=4, variant=variant)
        assert max(abs(a - b) for a, b in zip(r.xbar_curve[::3, 0], d["trajectory"], strict=True)) < 1e-14


@pytest.mark.parametrize(("kwargs", "arg"), [
    ({"case": "III"}, "--case"), ({"I": 0}, "--set I"), ({"I": 1.5}, "--set I"),
    ({"eta": 0.0}, "--set eta"), ({"eta": float("nan")}, "--set eta"), ({"rounds": 0}, "--rounds"),
    ({"decay": "exp"}, "--decay"), ({"variant": "other"}, "--variant")])
def test_bad_input(kwargs: dict, arg: str) -> None:
    args = {"case": "II", "I": 2, "eta": 0.01} | kwargs
    with pytest.raises(BadInput) as e:
        A.counterexample(**args)
    assert e.value.argument == arg


def test_cli_counterexample_json() -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["counterexample", "feddro.thm4.1", "--case", "II", "--set", "I=2",
                              "eta=0.01", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert KEYS <= set(d) and abs(d["trajectory"][1] - 0.520164197011407) < 1e-12
    assert d["fixed_point"] > 1 and min(d["trajectory"]) >= 0.5
    bad = runner.invoke(app, ["counterexample", "feddro.thm4.1", "--case", "X", "--set", "I=2",
                              "eta=0.01"])
    assert bad.exit_code == 2
