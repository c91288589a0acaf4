"""Relations every instance satisfies (μ ≤ L_f, m ≤ M, ℓ ≥ μ …), findings that explain an
infeasible point, the whole feasible set of max-step and a symbol the statement only asks to
exist (ProxSkip's "some M > B/ρ")."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp

from fedbounds import engine, registry
from fedbounds.errors import BadInput
from fedbounds.findings import explain
from fedbounds.model import POSITIVE, Condition, Notation, Relation, Theorem

# the acceptance point of issue 14: eta_x = 0.01, eta_y = 0.05, so eta_y/eta_x = 5 < 20 L_f²/μ²
SAGDA = {"L_f": F(1), "mu": F(1), "m": F(10), "M": F(10), "eta_xg": F(1), "eta_yg": F(1),
         "eta_xl": F(1, 100), "eta_yl": F(5, 100), "K": F(5)}


def _toy(conditions: list[tuple[str, sp.Rel]], existential: dict[str, str] | None = None,
         relations: list[Relation] | None = None) -> Theorem:
    """A theorem in x (and M, A) with the given conditions."""
    n = Notation("toy")
    for name in ("x", "M", "A"):
        n.add(name, POSITIVE, name)
    return Theorem(id="toy.thm", paper="toy", title="toy", source="here", statement="toy",
                   notation=n, conditions=[Condition(k, rel, "here") for k, rel in conditions],
                   existential=existential or {}, relations=relations or [])


X, M_, A_ = (sp.Symbol(s, positive=True) for s in ("x", "M", "A"))


# -- relations -----------------------------------------------------------------------------------
def test_a_violated_relation_is_bad_input_naming_it_and_the_values() -> None:
    t = registry.get("sagda.thm2")
    with pytest.raises(BadInput) as info:
        engine.check_relations(t, {**SAGDA, "L_f": F(1, 10)})
    message = info.value.message
    assert info.value.argument == "--set"
    assert "μ ≤ L_f" in message and "L_f=1/10" in message and "mu=1" in message


def test_relations_hold_or_are_skipped_when_a_symbol_is_not_given() -> None:
    t = registry.get("sagda.thm2")
    decided = engine.check_relations(t, SAGDA)
    assert {r.text for r in decided} == {"μ ≤ L_f", "m ≤ M"} and all(r.holds for r in decided)
    assert [r.text for r in engine.relations(t, {"mu": F(2)})] == []  # L_f not given
    # m = M holds (≤), m = M + 1 does not
    assert not engine.relations(t, {"m": F(11), "M": F(10)})[0].holds


def test_proxskip_relations_from_the_assumptions() -> None:
    t = registry.get("proxskip.cor3.6")
    with pytest.raises(BadInput, match="ℓ ≥ μ"):
        engine.check_relations(t, {"mu": F(3), "ell": F(2), "gamma": F(1, 10)})
    engine.check_relations(t, {"mu": F(2), "ell": F(2), "gamma": F(1, 10)})  # μ = ℓ allowed


def test_a_relation_with_the_varied_symbol_bounds_it() -> None:
    t = registry.get("sagda.thm2")
    rest = {k: v for k, v in SAGDA.items() if k != "mu"} | {"eta_xl": F(1, 10000),
                                                             "eta_yl": F(1, 100)}
    free = engine.max_step(t, "mu", rest)
    bounded = engine.max_step(engine.with_relations(t, "mu", rest), "mu", rest)
    assert free.value is None or free.value > 1  # the conditions alone allow μ above L_f = 1
    assert bounded.value == 1 and bounded.exact == "1" and bounded.attained
    assert bounded.binding == "relation: μ ≤ L_f"
    assert engine.check(t, {**rest, "mu": F(1)})[0]
    # a relation with a symbol not given is not added
    assert engine.with_relations(t, "mu", {}) is t


def test_relations_and_existential_symbols_are_validated() -> None:
    y = sp.Symbol("y", positive=True)
    with pytest.raises(ValueError, match="not in the notation"):
        _toy([("x <= 1", sp.Le(X, 1))], relations=[Relation(sp.Le(X, y), "why")])
    with pytest.raises(ValueError, match="not an input"):
        _toy([("x <= 1", sp.Le(X, 1))], existential={"y": "some y"})


# -- findings that explain -----------------------------------------------------------------------
def test_infeasible_sagda_point_is_explained_by_the_ratio_that_condition_9_forces() -> None:
    t = registry.get("sagda.thm2")
    feasible, results = engine.check(t, SAGDA)
    assert not feasible
    why = explain(t, SAGDA, [r.name for r in results if not r.holds])
    ratio = [e for e in why if e.finding.kind == "ratio"]
    assert len(ratio) == 1
    # eta_y/eta_x = (0.05 * 1)/(0.01 * 1) = 5; (9) forces it above 20 L_f²/μ² = 20
    assert ratio[0].actual == pytest.approx(5) and ratio[0].required == pytest.approx(20)
    assert "η_y/η_x = 5" in ratio[0].text and "(9)" in ratio[0].text


def test_no_ratio_explanation_when_the_ratio_is_allowed() -> None:
    t = registry.get("sagda.thm2")
    allowed = {**SAGDA, "eta_yl": F(1, 2)}  # eta_y/eta_x = 50 > 20
    assert [e for e in explain(t, allowed, []) if e.finding.kind == "ratio"] == []


# -- the whole feasible set ----------------------------------------------------------------------
def test_feasible_set_pieces_with_exact_closed_and_open_ends() -> None:
    t = _toy([("outside (1, 2)", sp.Ge((X - 1) * (X - 2), 0)), ("x <= 3", sp.Le(X, 3))])
    r = engine.max_step(t, "x", {}, exact_ends=True)
    assert [(p["lo"]["exact"], p["hi"]["exact"]) for p in r.intervals] == [("0", "1"),
                                                                          ("2", "3")]
    assert [(p["lo"]["closed"], p["hi"]["closed"]) for p in r.intervals] == [(False, True),
                                                                            (True, True)]
    assert engine.set_text(r.intervals) == "(0, 1] ∪ [2, 3]"
    strict = _toy([("outside [1, 2]", sp.Gt((X - 1) * (X - 2), 0)), ("x < 3", sp.Lt(X, 3))])
    assert engine.set_text(engine.max_step(strict, "x", {}, True).intervals) == \
        "(0, 1) ∪ (2, 3)"
    # without exact ends (the default, cheaper for library callers) the inner ends are floats
    floats = engine.max_step(t, "x", {}).intervals
    assert floats[1]["lo"]["exact"] is None and floats[1]["lo"]["value"] == pytest.approx(2)


def test_unbounded_set_shows_its_lower_end() -> None:
    t = _toy([("x >= 1/2", sp.Ge(X, sp.Rational(1, 2)))])
    r = engine.max_step(t, "x", {}, exact_ends=True)
    assert r.unbounded and engine.set_text(r.intervals) == "[1/2, ∞)"
    assert r.intervals[0]["hi"]["value"] is None


def test_empty_set_has_no_pieces() -> None:
    t = _toy([("x >= 2", sp.Ge(X, 2)), ("x <= 1", sp.Le(X, 1))])
    r = engine.max_step(t, "x", {})
    assert r.value is None and r.intervals == [] and engine.set_text(r.intervals) == "∅"


# -- a symbol the statement only asks to exist ----------------------------------------------------
def test_existential_symbol_is_chosen_for_the_largest_step() -> None:
    # x <= 1/(A + M) and M >= 2: the best M is 2, x = 1/(A + 2)
    t = _toy([("x <= 1/(A+M)", sp.Le(X, 1 / (A_ + M_))), ("M >= 2", sp.Ge(M_, 2))],
             existential={"M": "some M >= 2"})
    r = engine.max_step_choosing(t, "x", {"A": F(1)}, "M", "some M >= 2")
    assert r.chosen == {"M": "2"} and r.exact == "1/3"
    assert "chose M = 2" in r.note


def test_existential_symbol_at_a_strict_edge_is_said_to_be_a_supremum() -> None:
    t = registry.get("proxskip.thm3.1")
    given = {"mu": F(1), "A": F(1), "C": F(1), "B": F(1), "rho": F(1)}
    r = engine.max_step_choosing(t, "gamma", given, "M", t.existential["M"])
    chosen = F(r.chosen["M"])
    # γ ≤ 1/(2(A + MC)) with M > B/ρ = 1: the supremum 1/4 is approached as M → 1
    assert 1 < chosen < 1 + F(1, 10**9) and 0.25 * (1 - 1e-9) <= r.value < 0.25
    assert engine.check(t, {**given, "M": chosen, "gamma": F(r.value)})[0]
    assert "edge of M > B/rho" in r.note


def test_existential_symbol_with_no_effect_gets_a_short_value() -> None:
    t = registry.get("proxskip.thm3.1")
    given = {"mu": F(1), "A": F(1), "C": F(0), "B": F(1), "rho": F(1)}
    r = engine.max_step_choosing(t, "gamma", given, "M", t.existential["M"])
    assert r.value == 0.5 and len(r.chosen["M"]) <= 2 and F(r.chosen["M"]) > 1


def test_check_without_the_existential_symbol_says_max_step_chooses_it() -> None:
    t = registry.get("proxskip.thm3.1")
    with pytest.raises(BadInput, match="max-step"):
        engine.check(t, {"mu": F(1), "A": F(1), "C": F(0), "B": F(1), "rho": F(1),
                         "gamma": F(1, 10)})
