"""max-step, check and bound over theorem data: ProxSkip Thm 3.1 and synthetic theorems.

Theorem 3.1 of ProxSkip-VIP (arXiv:2306.05100) [L140]: γ ≤ min{1/μ, 1/(2(A+MC))}, M > B/ρ.
The synthetic theorems exercise the generic search: non-monotone conditions with a feasible set
that is not an interval, Max/Min/Piecewise, strict inequalities, integer symbols, unbounded and
empty feasible sets.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fedbounds import engine
from fedbounds.errors import BadInput
from fedbounds.model import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INTEGER,
    UNIT,
    Condition,
    Notation,
    Term,
    Theorem,
)
from fedbounds.theorems import proxskip

# not via the registry: it imports every paper's module, and others may be mid-edit
THM31 = proxskip.thm31
HYP = settings(max_examples=100, deadline=None)


def exactly_feasible(thm: Theorem, values: dict[str, Fraction]) -> bool:
    ok, _ = engine.check(thm, values)
    return ok


# ---------------------------------------------------------------------------------------------
# strategies: valid Thm 3.1 constants (Assumption 2.2, L107: A, B, C, D ≥ 0, ρ ∈ (0, 1])
# ---------------------------------------------------------------------------------------------
def positive(lo_exp: int = -6, hi_exp: int = 6) -> st.SearchStrategy[Fraction]:
    return st.builds(lambda m, e: Fraction(m, 1000) * Fraction(10) ** e,
                     st.integers(1, 10**6), st.integers(lo_exp, hi_exp))


def nonnegative() -> st.SearchStrategy[Fraction]:
    return st.one_of(st.just(Fraction(0)), positive())


unit = st.builds(lambda n, d: Fraction(n, d), st.integers(1, 10**6), st.integers(1, 10**6)) \
    .filter(lambda r: 0 < r <= 1)


@st.composite
def thm31_constants(draw: st.DrawFn) -> dict[str, Fraction]:
    B, rho = draw(nonnegative()), draw(unit)
    # L140 needs some M > B/rho: draw M strictly above B/rho (or any M > 0 when B = 0)
    M = B / rho * (1 + draw(positive(-6, 2))) if B else draw(positive())
    return {"mu": draw(positive()), "A": draw(nonnegative()), "C": draw(nonnegative()),
            "B": B, "rho": rho, "M": M}


def closed_form(v: dict[str, Fraction]) -> Fraction:
    # L140: gamma <= min{1/mu, 1/(2(A+MC))}; the second cap is absent when A + MC = 0
    caps = [1 / v["mu"]]
    if v["A"] + v["M"] * v["C"] > 0:
        caps.append(1 / (2 * (v["A"] + v["M"] * v["C"])))
    return min(caps)


@HYP
@given(thm31_constants())
def test_thm31_max_step_closed_form_feasible_and_tight(v: dict[str, Fraction]) -> None:
    r = engine.max_step(THM31, "gamma", v)
    expected = closed_form(v)
    assert r.value is not None
    assert abs(Fraction(r.value) - expected) <= Fraction(1, 10**12) * expected
    assert r.interval and r.attained and not r.unbounded
    # the binding condition is the smaller cap (either may be named on a near-tie)
    cap_mu = 1 / v["mu"]
    s = v["A"] + v["M"] * v["C"]
    cap2 = 1 / (2 * s) if s else None
    if cap2 is None or cap2 > cap_mu * Fraction(1 + 10**-9):
        assert r.binding == "gamma <= 1/mu"
    elif cap2 < cap_mu * Fraction(1 - 10**-9):
        assert r.binding == "gamma <= 1/(2(A+MC))"
    else:
        assert r.binding in ("gamma <= 1/mu", "gamma <= 1/(2(A+MC))")
    # property (same examples, to keep the suite fast): the value itself passes `check`
    # exactly, as the binary float and as its printed decimal
    assert exactly_feasible(THM31, {**v, "gamma": Fraction(r.value)})
    assert exactly_feasible(THM31, {**v, "gamma": Fraction(repr(r.value))})
    # and 1.000001x it violates at least one condition
    ok, results = engine.check(THM31, {**v, "gamma": Fraction(r.value) * Fraction(1000001,
                                                                                   10**6)})
    assert not ok
    assert {x.name for x in results if not x.holds} <= {"gamma <= 1/mu", "gamma <= 1/(2(A+MC))"}


@settings(max_examples=40, deadline=None)
@given(thm31_constants())
def test_thm31_max_step_on_other_symbols(v: dict[str, Fraction]) -> None:
    # vary mu: gamma <= 1/mu  <=>  mu <= 1/gamma; fix gamma at half the closed form
    gamma = closed_form(v) / 2
    vals = {k: x for k, x in v.items() if k != "mu"}
    r = engine.max_step(THM31, "mu", {**vals, "gamma": gamma})
    assert r.value == pytest.approx(float(1 / gamma), rel=1e-12)
    assert r.binding == "gamma <= 1/mu"
    assert exactly_feasible(THM31, {**vals, "gamma": gamma, "mu": Fraction(r.value)})


def test_thm31_infeasible_M_gives_no_value() -> None:
    # L140: M > B/rho fails for every gamma when M = 1, B = 1, rho = 1/2 (B/rho = 2)
    r = engine.max_step(THM31, "gamma", {k: Fraction(x) for k, x in
                                         dict(mu=1, A=1, C=1, B=1, rho=Fraction(1, 2),
                                              M=1).items()})
    assert r.value is None and r.binding == "M > B/rho" and not r.unbounded


def test_thm31_gamma_exactly_one_over_mu_is_feasible() -> None:
    # L140: gamma = 1/mu exactly with mu = 3 (1/3 is not a binary float): holds exactly
    v = {"mu": Fraction(3), "A": Fraction(0), "C": Fraction(0), "B": Fraction(0),
         "rho": Fraction(1), "M": Fraction(1)}
    ok, res = engine.check(THM31, {**v, "gamma": Fraction(1, 3)})
    assert ok and res[0].margin == 0.0
    # 1/3 + 1/(3*10^20) rounds to the same double but exceeds 1/mu: decided exactly
    ok, res = engine.check(THM31, {**v, "gamma": Fraction(1, 3) + Fraction(1, 3 * 10**20)})
    assert not ok and [x.name for x in res if not x.holds] == ["gamma <= 1/mu"]
    # max-step: only gamma <= 1/mu binds (A + MC = 0); the value is within an ulp of 1/3
    r = engine.max_step(THM31, "gamma", v)
    assert r.binding == "gamma <= 1/mu"
    assert Fraction(r.value) <= Fraction(1, 3)
    assert Fraction(1, 3) - Fraction(r.value) <= Fraction(1, 3) * Fraction(1, 2**51)


def test_strict_equality_fails_exactly() -> None:
    # L140: M > B/rho is strict: M = 2, B = 1, rho = 1/2 gives 2 > 2, false
    v = {"mu": Fraction(1), "A": Fraction(0), "C": Fraction(0), "B": Fraction(1),
         "rho": Fraction(1, 2), "M": Fraction(2), "gamma": Fraction(1, 2)}
    ok, res = engine.check(THM31, v)
    assert not ok and [x.name for x in res if not x.holds] == ["M > B/rho"]
    # M = 2 + 10^-30 is > 2 exactly though equal as a double
    ok, _ = engine.check(THM31, {**v, "M": Fraction(2) + Fraction(1, 10**30)})
    assert ok


def test_fraction_rounding_borderline_at_one_over_2000() -> None:
    # fl(1/2000) = 0.0005 (binary) exceeds 1/2000: max-step must not return it
    v = {"mu": Fraction(1), "A": Fraction(1000), "C": Fraction(0), "B": Fraction(0),
         "rho": Fraction(1), "M": Fraction(1)}
    r = engine.max_step(THM31, "gamma", v)
    assert Fraction(r.value) <= Fraction(1, 2000)
    assert r.value == pytest.approx(1 / 2000, rel=1e-15)
    assert not exactly_feasible(THM31, {**v, "gamma": Fraction(0.0005)})


# ---------------------------------------------------------------------------------------------
# synthetic theorems
# ---------------------------------------------------------------------------------------------
def synthetic(conditions: list[tuple[str, sp.Rel]], integer: bool = False,
              x_domain=None) -> tuple[Theorem, dict[str, sp.Symbol]]:
    N = Notation("synthetic")
    x = N.add("n" if integer else "x", POSITIVE_INTEGER if integer else (x_domain or POSITIVE),
              "varied symbol")
    a = N.add("a", POSITIVE, "parameter a")
    b = N.add("b", NONNEGATIVE, "parameter b")
    p = N.add("p", UNIT, "a probability")
    syms = {"x": x, "a": a, "b": b, "p": p}
    conds = [Condition(name, rel(syms), "L0") for name, rel in conditions]
    thm = Theorem(id="synthetic.t", paper="synthetic", title="t", source="L0", statement="",
                  notation=N, conditions=conds,
                  bound=[Term("value", syms["x"] * syms["a"], "L0")])
    return thm, syms


F = Fraction


def test_non_monotone_condition_non_interval() -> None:
    # (x-1)(x-3)(x-6) <= 0  <=>  x in (0, 1] U [3, 6]
    thm, _ = synthetic([("cubic", lambda s: sp.Le((s["x"] - 1) * (s["x"] - 3) * (s["x"] - 6),
                                                  0))])
    r = engine.max_step(thm, "x", {})
    assert r.value == pytest.approx(6.0, rel=1e-12)
    assert not r.interval
    assert len(r.segments) == 2
    (lo1, hi1), (lo2, hi2) = r.segments
    assert hi1 == pytest.approx(1.0, rel=1e-12) and lo2 == pytest.approx(3.0, rel=1e-12)
    assert hi2 == pytest.approx(6.0, rel=1e-12)
    assert r.binding == "cubic"
    # a value in the gap is infeasible, the endpoints are feasible
    assert not exactly_feasible(thm, {"x": F(2)})
    assert exactly_feasible(thm, {"x": F(3)}) and exactly_feasible(thm, {"x": F(r.value)})


def test_largest_feasible_is_not_the_largest_segment() -> None:
    # feasible (0, 10] U [20, 20.5]: the answer is the far, narrow island
    thm, _ = synthetic([("island", lambda s: sp.Ge((s["x"] - 10) * (s["x"] - 20)
                                                   * (s["x"] - F(41, 2)) * -1, 0))])
    r = engine.max_step(thm, "x", {})
    assert r.value == pytest.approx(20.5, rel=1e-12)
    assert not r.interval


def test_max_min_piecewise_conditions() -> None:
    thm, _ = synthetic([
        ("max", lambda s: sp.Le(s["x"], sp.Max(1 / s["a"], s["b"]))),
        ("min", lambda s: sp.Le(s["x"], sp.Min(s["a"], 5 * s["b"] + 1))),
    ])
    # a=2, b=3: Max(1/2, 3) = 3 and Min(2, 16) = 2 -> 2, binding "min"
    r = engine.max_step(thm, "x", {"a": F(2), "b": F(3)})
    assert r.value == pytest.approx(2.0, rel=1e-12) and r.binding == "min"
    # a=10, b=1/5: Max(1/10, 1/5) = 1/5 and Min(10, 2) = 2 -> 1/5, binding "max"
    r = engine.max_step(thm, "x", {"a": F(10), "b": F(1, 5)})
    assert r.value == pytest.approx(0.2, rel=1e-12) and r.binding == "max"

    thm, _ = synthetic([("pw", lambda s: sp.Le(
        sp.Piecewise((s["x"], s["x"] < 2), (s["x"] - 10, True)), 1))])
    # x <= 1 when x < 2; x - 10 <= 1 when x >= 2: feasible (0, 1] U [2, 11]
    r = engine.max_step(thm, "x", {})
    assert r.value == pytest.approx(11.0, rel=1e-12)
    assert not r.interval
    assert r.segments[0][1] == pytest.approx(1.0, rel=1e-12)
    assert r.segments[1][0] == pytest.approx(2.0, rel=1e-12)

    thm, _ = synthetic([("max-in-x", lambda s: sp.Le(sp.Max(s["x"], 2 * s["x"] - 3), 5))])
    # Max(x, 2x - 3) <= 5  <=>  x <= 4
    r = engine.max_step(thm, "x", {})
    assert r.value == pytest.approx(4.0, rel=1e-12) and r.interval


def test_piecewise_in_parameter() -> None:
    thm, _ = synthetic([("pw", lambda s: sp.Le(
        s["x"], sp.Piecewise((1, s["a"] < 1), (s["a"] ** 2, True))))])
    assert engine.max_step(thm, "x", {"a": F(3)}).value == pytest.approx(9.0, rel=1e-12)
    assert engine.max_step(thm, "x", {"a": F(1, 2)}).value == pytest.approx(1.0, rel=1e-12)


def test_strict_inequality_supremum_not_attained() -> None:
    thm, _ = synthetic([("strict", lambda s: sp.Lt(s["x"], 1 / s["a"]))])
    r = engine.max_step(thm, "x", {"a": F(3)})
    assert not r.attained
    assert Fraction(r.value) < Fraction(1, 3)
    assert Fraction(1, 3) - Fraction(r.value) < Fraction(1, 3) * Fraction(1, 10**15)
    assert exactly_feasible(thm, {"a": F(3), "x": F(r.value)})
    assert not exactly_feasible(thm, {"a": F(3), "x": F(1, 3)})
    # a strict condition that does not bind leaves the maximum attained
    thm, _ = synthetic([("strict", lambda s: sp.Lt(s["x"], 10)),
                        ("weak", lambda s: sp.Le(s["x"], 2))])
    r = engine.max_step(thm, "x", {})
    assert r.value == 2.0 and r.attained and r.binding == "weak"


def test_integer_domain_symbol() -> None:
    thm, _ = synthetic([("lin", lambda s: sp.Le(s["x"] * s["a"], 10))], integer=True)
    # n * 3 <= 10 -> n <= 3.33 -> 3
    r = engine.max_step(thm, "n", {"a": F(3)})
    assert r.value == 3 and r.binding == "lin"
    # n * 2 <= 10 -> exactly 5
    assert engine.max_step(thm, "n", {"a": F(2)}).value == 5
    # non-interval on the integers: (n - 5/2)(n - 13/2) >= 0 and n <= 19/2: {1, 2} U {7, 8, 9}
    thm, _ = synthetic([("gap", lambda s: sp.Ge((s["x"] - F(5, 2)) * (s["x"] - F(13, 2)), 0)),
                        ("cap", lambda s: sp.Le(s["x"], F(19, 2)))], integer=True)
    r = engine.max_step(thm, "n", {})
    assert r.value == 9 and not r.interval and r.binding == "cap"
    # no integer in [6/5, 9/5]: nothing feasible
    thm, _ = synthetic([("lo", lambda s: sp.Ge(s["x"], F(6, 5))),
                        ("hi", lambda s: sp.Le(s["x"], F(9, 5)))], integer=True)
    assert engine.max_step(thm, "n", {}).value is None
    # a non-integer value for an integer symbol is a domain error
    with pytest.raises(BadInput, match="integer"):
        engine.check(thm, {"n": F(3, 2)})


def test_unbounded_and_empty() -> None:
    thm, _ = synthetic([("lower", lambda s: sp.Ge(s["x"], s["a"]))])
    r = engine.max_step(thm, "x", {"a": F(2)})
    assert r.value is None and r.unbounded and r.interval
    thm, _ = synthetic([("neg", lambda s: sp.Le(s["x"], -s["a"], evaluate=False))])
    r = engine.max_step(thm, "x", {"a": F(1)})
    assert r.value is None and not r.unbounded and r.binding == "neg"
    thm, _ = synthetic([("lo", lambda s: sp.Ge(s["x"], s["a"])),
                        ("hi", lambda s: sp.Le(s["x"], s["b"]))])
    r = engine.max_step(thm, "x", {"a": F(3), "b": F(2)})
    assert r.value is None and r.segments == []


def test_domain_upper_end_binds() -> None:
    # p in (0, 1]; p <= 2a never binds for a = 1: the domain end does
    thm, _ = synthetic([("cap", lambda s: sp.Le(s["p"], 2 * s["a"]))])
    r = engine.max_step(thm, "p", {"a": F(1)})
    assert r.value == 1.0 and r.binding is not None and "domain of p" in r.binding
    r = engine.max_step(thm, "p", {"a": F(1, 4)})
    assert r.value == 0.5 and r.binding == "cap"


def test_division_by_zero_is_infinite_cap_in_check_and_max_step() -> None:
    # x <= a/b with b = 0 is no constraint (+inf) both in check and max-step; 0/0 is violated
    thm, _ = synthetic([("ratio", lambda s: sp.Le(s["x"], s["a"] / s["b"])),
                        ("cap", lambda s: sp.Le(s["x"], 7))])
    assert exactly_feasible(thm, {"x": F(5), "a": F(1), "b": F(0)})
    r = engine.max_step(thm, "x", {"a": F(1), "b": F(0)})
    assert r.value == 7.0 and r.binding == "cap"


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10**4), st.integers(11, 1000), st.integers(11, 1000),
       st.integers(-4, 4))
def test_property_non_interval_cubic(m: int, g1: int, g2: int, e: int) -> None:
    # roots r1 < r2 < r3 at least 10% apart: feasible (0, r1] U [r2, r3], answer r3
    r1 = Fraction(m, 100) * Fraction(10) ** e
    r2 = r1 * Fraction(10 + g1, 10) / 1
    r3 = r2 * Fraction(10 + g2, 10)
    thm, _ = synthetic([("cubic", lambda s: sp.Le((s["x"] - r1) * (s["x"] - r2)
                                                  * (s["x"] - r3), 0))])
    r = engine.max_step(thm, "x", {})
    assert r.value == pytest.approx(float(r3), rel=1e-9)
    assert not r.interval and len(r.segments) == 2
    assert exactly_feasible(thm, {"x": Fraction(r.value)})
    assert not exactly_feasible(thm, {"x": Fraction(r.value) * Fraction(1000001, 10**6)})


# ---------------------------------------------------------------------------------------------
# validation at the engine boundary
# ---------------------------------------------------------------------------------------------
def test_validation_messages_name_the_symbol() -> None:
    base = {"gamma": F(1, 10), "mu": F(1), "A": F(1), "M": F(4), "C": F(1, 2), "B": F(1),
            "rho": F(1, 2)}
    with pytest.raises(BadInput, match="rho") as e:
        engine.check(THM31, {**base, "rho": F(0)})
    assert "(0, 1]" in e.value.message
    with pytest.raises(BadInput, match="rho"):
        engine.check(THM31, {**base, "rho": F(3, 2)})
    with pytest.raises(BadInput, match="mu"):
        engine.check(THM31, {**base, "mu": F(-1)})
    with pytest.raises(BadInput, match="missing value for B"):
        engine.check(THM31, {k: v for k, v in base.items() if k != "B"})
    with pytest.raises(BadInput, match="did you mean 'gamma'"):
        engine.check(THM31, {**base, "gama": F(1)})
    with pytest.raises(BadInput, match="derived"):
        engine.check(THM31, {**base, "tau": F(1, 2)})
    with pytest.raises(BadInput, match="p=3/2 is outside"):
        engine.bound(THM31, {**base, "p": F(3, 2), "D_1": F(0), "D_2": F(0), "V_0": F(1),
                             "T": F(3)})
    with pytest.raises(BadInput, match="--vary"):
        engine.max_step(THM31, "D_1", {})
    with pytest.raises(BadInput, match="--vary"):
        engine.max_step(THM31, "gamma", base)
    # negative Lipschitz-type constant on a theorem that has one (L_g, L174)
    with pytest.raises(BadInput, match="L_g"):
        engine.check(proxskip.cor35,
                     {"gamma": F(1), "L_g": F(-2), "mu": F(1), "epsilon": F(1),
                      "sigma_star": F(0)})


def test_bound_reports_violated_conditions() -> None:
    b = engine.bound(THM31, {"gamma": F(1, 2), "mu": F(4), "A": F(0), "M": F(4), "C": F(0),
                             "B": F(1), "rho": F(1, 2), "p": F(1), "D_1": F(0), "D_2": F(0),
                             "V_0": F(1), "T": F(2)})
    # L140: gamma = 1/2 > 1/mu = 1/4; tau = min{2, 1, 1/2 - 1/4} = 1/4 -> (3/4)^2 = 9/16 (L142)
    assert not b.feasible and b.violated == ["gamma <= 1/mu"]
    assert b.terms["contraction"] == pytest.approx(9 / 16, rel=1e-12)
    assert b.terms["neighborhood"] == 0.0
    assert math.isfinite(b.value)
