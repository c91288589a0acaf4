"""FedDRO exact computations: the Theorem 4.1 counterexample's round maps vs an independent
reference table (mpmath, 30 digits; not the paper's numbers), fixed points and generalisations; the
encoded theorems evaluated at numbers (Lemma F.4's steady state, Theorem F.1's horizon,
Corollary 2's costs, Lemma 3.1 vs the true smoothness)."""

# ruff: noqa: E741  (I is the paper's number of local steps, Algorithm 1 [L167])

import math

import pytest

from fedbounds.errors import BadInput
from fedbounds.problems.feddro import make
from fedbounds.verify.algorithms.feddro import THM41_COUNTEREXAMPLE
from fedbounds.verify.exact import feddro

# independent reference table (I = 2, x̄⁰ = 0.5): (x̄², x̄⁴, x̄⁶), fixed point
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
    d = feddro.counterexample(case, 2, eta, rounds=3)
    assert KEYS <= set(d)
    ref, fp = TABLE[(case, eta)]
    assert d["trajectory"][0] == 0.5
    for got, want in zip(d["trajectory"][1:], ref, strict=True):
        assert abs(got - want) < 1e-12
    assert d["fixed_point"] == pytest.approx(fp, abs=1e-10)
    assert d["lower_bound"] == pytest.approx(1 / 17)  # (1/2)²/((1/2)² + 4), App. D [L481, L531]
    assert d["C_eta"] == (1 / 8 if case == "I" else 1 / 22)  # Appendix D [L481, L531]


@pytest.mark.parametrize("case", ["I", "II"])
@pytest.mark.parametrize("I", [1, 2, 3, 4, 8])
def test_fixed_point_and_lower_bound(case: str, I: int) -> None:
    d = feddro.counterexample(case, I, 0.01, rounds=int(300 / 0.01 / I))
    if case == "II" and I == 1:  # no local steps: exact gradient descent on Φ → x* = 0
        assert abs(d["final"]) < 1e-6 and d["fixed_point"] == pytest.approx(0.0, abs=1e-12)
        return
    assert min(d["trajectory"]) >= 0.5  # never below 0.5 at a communication round
    assert d["fixed_point"] > 1 and abs(d["final"] - d["fixed_point"]) < 1e-6
    assert d["grad_sq_final"] >= 1 / 17


def test_eta0_limits_reference() -> None:
    # derived (η → 0 limits of the round map): Case I root of 12x⁴ − 72x³ + 171x² − 172x + 60 in
    # (1, 2); Case II ∇Φ + (I−1)∇F
    x = feddro.fixed_point_eta0("I", 1)
    assert x == pytest.approx(1.16866733425053, abs=1e-12)
    assert abs(12 * x**4 - 72 * x**3 + 171 * x**2 - 172 * x + 60) < 1e-10
    for I, ref in ((2, 1.05534124344369), (3, 1.10825396496442), (4, 1.12739351540154),
                   (8, 1.15043532697376)):
        assert feddro.fixed_point_eta0("II", I) == pytest.approx(ref, abs=1e-12)


def test_decaying_steps_and_literal_variant() -> None:
    d2 = feddro.counterexample("II", 2, 0.04, rounds=20000, decay="sqrt")
    d1 = feddro.counterexample("I", 2, 0.04, rounds=20000, decay="sqrt")
    assert min(d2["trajectory"]) >= 0.5 and min(d1["trajectory"]) >= 0.5
    assert d2["final"] == pytest.approx(1.0553, abs=2e-3) and d2["fixed_point"] == d2["fixed_point_eta0"]
    assert d1["final"] == pytest.approx(1.1687, abs=2e-3)
    lit = [feddro.counterexample("I", 2, e, rounds=5, variant="literal")["fixed_point"]
           for e in (0.001, 0.01, 0.1)]
    assert lit == pytest.approx([1.17013, 1.18273, 1.25996], abs=1e-5)  # independent reference


def test_trajectory_from_other_starts_reaches_the_fixed_point() -> None:
    fp = feddro.counterexample("II", 2, 0.01, rounds=20000)["fixed_point"]
    for x0 in (-3.0, 10.0):
        assert feddro.trajectory("II", 2, 0.01, 20000, x0=x0)[0][-1] == pytest.approx(fp, abs=2e-3)


def test_sweeps_reproduce_the_reference_tables() -> None:
    runs, series, table_err = feddro.nonconvergence_runs("II", ["proof"], [2], [0.01, 0.04], 200,
                                                         1e-6, 10)
    assert table_err < 1e-10 and all(r["converged"] for r in runs) and len(series) == 2
    errs, rows, starts, _ = feddro.generalisation([1, 2], 0.01, 0.04, 2000, [3.0])
    assert errs["eta0 limit I I=1"] < 1e-12 and errs["eta0 limit II I=2"] < 1e-12
    assert errs["Case II I=1 final |x̄|"] < 1e-6  # Case II with I = 1 converges to x* = 0
    assert errs["Case I I=1 stays >= 0.5 (0 if so)"] == 0.0


@pytest.mark.parametrize(("kwargs", "arg"), [
    ({"case": "III"}, "--case"), ({"eta": 0.0}, "--set eta"), ({"eta": float("nan")}, "--set eta"),
    ({"rounds": 0}, "--rounds")])
def test_bad_input(kwargs: dict, arg: str) -> None:
    args = {"case": "II", "I": 2, "eta": 0.01} | kwargs
    with pytest.raises(BadInput) as e:
        feddro.counterexample(**args)
    assert e.value.argument == arg


@pytest.mark.parametrize(("values", "options", "arg"), [
    ({"I": 0, "eta": 0.01}, {}, "--set I"), ({"I": 1.5, "eta": 0.01}, {}, "--set I"),
    ({"I": 2}, {}, "--set eta"), ({"I": 2, "eta": 0.01, "x": 1}, {}, "--set x"),
    ({"I": 2, "eta": 0.01}, {"decay": "exp"}, "--decay"),
    ({"I": 2, "eta": 0.01}, {"variant": "other"}, "--variant")])
def test_counterexample_declaration_validates(values: dict, options: dict, arg: str) -> None:
    ce = THM41_COUNTEREXAMPLE
    assert ce.theorem == "feddro.thm4.1" and ce.cases == ("I", "II")
    with pytest.raises(BadInput) as e:
        ce.run("II", ce.values(values), 5, **options)
    assert e.value.argument == arg


def test_counterexample_declaration_runs_the_round_map() -> None:
    ce = THM41_COUNTEREXAMPLE
    doc = ce.run("II", ce.values({"I": 2, "eta": 0.01}), 3, variant=None, decay=None)
    assert doc == feddro.counterexample("II", 2, 0.01, rounds=3)
    assert abs(doc["trajectory"][1] - 0.520164197011407) < 1e-12  # reference table


def test_theorem_at_and_lemma_F4_steady_state() -> None:
    # Lemma F.4 (proof form [L875–L878]) with drift = mean gradient = σ_h = Δ = 0 is
    # e = (1−β)²e + c, so
    # e* = (2β² + 4η²(1−β)²B_g²B_f²)σ_g²/(|b|K(1 − (1−β)²))
    c = {**make("feddro-p1", {"K": 2, "A": 3.0, "C": 4.0, "s": 2.0}).constants, "b": 1,
         "eta": 0.01, "beta": 0.4, "sigma_g": 2.0, "sigma_h": 0.0, "Delta_h": 0.0,
         "Delta_g": 0.0, "drift": 0.0, "grad_mean_sq": 0.0}
    Bg2 = c["B_g"] ** 2
    want = (2 * 0.16 + 4e-4 * 0.36 * Bg2) * 4.0 / 2 / (1 - 0.36)
    assert feddro.tracking_steady_state(c) == pytest.approx(want, rel=1e-13)
    with pytest.raises(BadInput):
        feddro.theorem("feddro.thm9.9")


def test_horizon_F1_on_P1() -> None:
    # P1 (A = C = 1/2, s = 0, K = 2): B_g = 3/2, L_f = 1/2, L_Φ = 9/8; T_th = 4(L_Φ·2 + 8B_g²)²/2
    # = 820.125 (Theorem F.1 [L629]); c_β = 4B_g⁴L_f² = 81/16, T_β = c_β²·2 = 51.26;
    # T − 1 a multiple of I
    c = {**make("feddro-p1", {"K": 2, "A": 0.5, "C": 0.5, "s": 0.0}).constants, "y_err0": 0.0,
         "b": 1, "I": 2}
    T, T_th, T_beta = feddro.horizon_F1(c)
    assert T_th == pytest.approx(820.125, rel=1e-14) and T_beta == pytest.approx(2 * (81 / 16) ** 2)
    assert T == 823 and (T - 1) % 2 == 0


def test_costs_of_corollary_2() -> None:
    # Corollary 2 [L251–L261] with I = T^{1/4}/(|b|K)^{3/4}: samples 4|b|KT, model rounds T/I,
    # all rounds T
    cost = feddro.costs_at("feddro.cor2", {"T": 8**3 * 16, "b": 1, "K": 8})
    T = 8**3 * 16
    assert cost["samples"] == 4 * 8 * T and cost["communications (all rounds)"] == T
    assert cost["communications (model sharing)"] == pytest.approx(T / (T**0.25 / 8**0.75))


def test_lemma31_against_the_true_smoothness() -> None:
    # counterexample: Lemma 3.1's bound 8 (B_g²L_f = 16/2); P1 (A = C = 1/2): max|Φ''| = ā²/2
    # = 1/2 exactly
    rows = feddro.smoothness_rows([("feddro-counterexample", {}),
                                   ("feddro-p1", {"A": 0.5, "C": 0.5, "s": 1.0})], 10, 0)
    assert rows[0]["bound"] == 8.0 and rows[0]["max_abs_Phi2"] == pytest.approx(0.5)
    assert rows[1]["max_abs_Phi2"] == 0.5 and rows[1]["exact"] == "1/2"
    assert all(r["ratio"] <= 1 for r in rows) and math.isfinite(rows[1]["bound"])
