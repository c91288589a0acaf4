"""A claim's runs checked against its theorem's conditions (:mod:`fedbounds.verify.conditions`)
and what a failed check does to the verdict's reading (:mod:`fedbounds.verify.provenance`)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fedbounds.verify.claim import FigureSpec, Measurement, UpperBound, claim
from fedbounds.verify.conditions import RunConditions, check_runs, record
from fedbounds.verify.provenance import REFUTATION_MEANINGS, meaning, refutes_paper

# SAGDA Theorem 1 (Option I) at the step sizes sagda.p10 used to run with (K = 16): eq. (10)
# holds, eqs. (11)–(13) fail
P10_RUN = {"L_f": 1.5, "mu": 1, "K": 16, "M": 10, "m": 2, "eta_xl": Fraction(1, 32000),
           "eta_yl": Fraction(1, 640), "eta_xg": 20, "eta_yg": 20}
# one step of small local and global steps, η_x/η_y ≤ μ²/(20L_f²) as eq. (13) asks
INSIDE = {**P10_RUN, "K": 1, "eta_xl": Fraction(1, 1000), "eta_yl": Fraction(1, 1000),
          "eta_xg": Fraction(1, 1000), "eta_yg": Fraction(1, 10)}


def test_a_run_outside_the_conditions_names_each_failing_one() -> None:
    out = check_runs([RunConditions("sagda.thm1.opt1", P10_RUN, where="K = 16")])
    assert out["status"] == "fail"
    (run,) = out["runs"]
    assert (run["theorem"], run["where"], run["holds"]) == ("sagda.thm1.opt1", "K = 16", False)
    assert [c["name"][:4] for c in run["failing"]] == ["(11)", "(12)", "(13)"]
    assert all(c["margin"] < 0 and "Theorem 1" in c["source"] for c in run["failing"])


def test_a_run_inside_the_conditions_holds() -> None:
    inside = INSIDE
    out = check_runs([RunConditions("sagda.thm1.opt1", inside),
                      RunConditions("sagda.thm1.opt1", P10_RUN)])
    assert [r["holds"] for r in out["runs"]] == [True, False]
    assert out["status"] == "fail"  # one run outside is enough
    assert check_runs([RunConditions("sagda.thm1.opt1", inside)])["status"] == "hold"


def test_the_margin_is_the_conditions_own_arithmetic() -> None:
    # SAGDA Theorem 1, eq. (10): 8K(K−1)(2K−1)L_f² max(η_xl², η_yl²) ≤ 1; at the K = 16 run
    # by hand: 8·16·15·31·1.5²·(1/640)² = 0.326953125, a margin of 0.673046875
    from fedbounds import engine, registry

    lhs = 8 * 16 * 15 * 31 * Fraction(9, 4) * Fraction(1, 640) ** 2
    _, results = engine.check(registry.get("sagda.thm1.opt1"),
                              {k: Fraction(v) for k, v in P10_RUN.items()})
    (ten,) = [r for r in results if r.name.startswith("(10)")]
    assert ten.holds and ten.margin == float(1 - lhs) == 0.673046875


def test_nothing_to_check_says_why_and_silence_is_not_checked() -> None:
    assert record([], "an exact analysis of the formula") == {
        "status": "not applicable", "why": "an exact analysis of the formula"}
    assert record([], "") == {"status": "not checked"}


def _toy(provenance: str, inside: bool, **more):
    @claim("toy.c1", title="t", prediction="x <= 1", source="Thm 1", provenance=provenance,
           rule=UpperBound(1.0), figure=FigureSpec("f", "x", "y"), **more)
    def toy(params, seed):
        run = INSIDE if inside else P10_RUN
        return Measurement(2.0, series={"s": ([1.0], [2.0])},
                           conditions=[RunConditions("sagda.thm1.opt1", run)])
    return toy


@pytest.mark.parametrize("provenance, more", [
    ("paper", {}), ("erratum", {"errata": ("x",)}),
    ("derived", {"derivation": "read the bound as a rate"})])
def test_a_refutation_outside_the_conditions_is_an_extrapolation(provenance, more) -> None:
    v = _toy(provenance, inside=False, **more).run()
    assert v.verdict == "refuted" and v.conditions["status"] == "fail"
    assert v.provenance == "extrapolation" and v.as_json()["provenance"] == "extrapolation"
    assert not refutes_paper(v.provenance)
    inside = _toy(provenance, inside=True, **more).run()
    assert inside.provenance == provenance and inside.conditions["status"] == "hold"


def test_a_conjecture_stays_a_conjecture_and_meanings_are_counted_once() -> None:
    assert _toy("conjecture", inside=False).run().provenance == "conjecture"
    assert meaning("derived", exact_derivation=True) == "refutes the paper"
    assert meaning("extrapolation") == "refutes an extrapolation beyond the theorem"
    assert len(REFUTATION_MEANINGS) == len(set(REFUTATION_MEANINGS)) == 6
    assert [p for p in ("paper", "erratum", "derived", "consistency", "conjecture",
                        "extrapolation") if refutes_paper(p)] == ["paper", "erratum"]
