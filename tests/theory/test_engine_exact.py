"""Exact answers of ``check``, ``bound`` and ``max-step`` where float64 cannot decide.

The three defects a fuzzer found, on ProxSkip-VIP (arXiv:2306.05100): Theorem 4.4 with a
subnormal μ (M = 4/q overflows, so ``M > 2/q`` read inf > inf), Corollary 3.2's max-step over C
(γ ≤ 1/(2(A+MC)) [L140] with γ = 2, A = 1/4 forces MC ≤ 0: the answer is C = 0, not 9.25e-16)
and a boundary beyond the scanned grid (Theorem 3.1 over M with C = 1e-60: M ≤ 1e60, not
unbounded). Then bound terms beyond float64's range, and two properties over every registered
theorem: ``check`` agrees with an independent exact evaluation (sympy rationals substituted into
the expanded conditions, 100-digit ``evalf`` for irrational margins), and ``max_step``'s value
passes ``check`` as the float, as its ``repr`` and as the printed decimal.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from functools import cache

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fedbounds import engine, registry
from fedbounds.model import NONNEGATIVE, POSITIVE, Condition, Domain, Notation, Term, Theorem
from fedbounds.theorems import proxskip

F = Fraction
THEOREMS = sorted((t for t in registry.theorems().values() if t.conditions), key=lambda t: t.id)
MAX_DOUBLE = sys.float_info.max


def fractions(**values: object) -> dict[str, Fraction]:
    return {k: Fraction(str(v)) for k, v in values.items()}


def scientific_value(text: str) -> Fraction:
    """``"5.2173913043478261e+309"`` as an exact rational (beyond float64's range)."""
    mantissa, _, exponent = text.partition("e")
    return Fraction(mantissa) * Fraction(10) ** int(exponent or 0)


def close(a: Fraction, b: Fraction, rel: Fraction = Fraction(1, 10**15)) -> bool:
    return abs(a - b) <= rel * abs(b)


# ---------------------------------------------------------------------------------------------
# defect 1: Theorem 4.4 at a subnormal μ (check, and the JSON of a number beyond the range)
# ---------------------------------------------------------------------------------------------
def test_check_thm44_subnormal_mu_is_feasible_with_exact_overflowing_sides() -> None:
    mu = F("2.3e-308")
    ok, results = engine.check(proxskip.thm44, {"ell_hat": F(10), "mu": mu})
    assert ok and all(r.holds for r in results)
    # γ = min(1/(6ℓ), 1/μ) = 1/60, q = 2γμ, M = 4/q = 120/μ > 2/q = 60/μ: 5.2e309 > 2.6e309
    by = {r.name: r for r in results}["M > B/rho"]
    assert math.isinf(by.lhs) and math.isinf(by.rhs)  # the nearest floats: beyond the range
    assert close(scientific_value(by.exact["lhs"]), 120 / mu)
    assert close(scientific_value(by.exact["rhs"]), 60 / mu)
    assert close(scientific_value(by.exact["margin"]), 60 / mu)
    doc = by.as_json()
    # JSON keeps a number (the largest double), never null, and the exact string beside it
    assert doc["lhs"] == doc["rhs"] == doc["margin"] == MAX_DOUBLE
    assert doc["exact"] == by.exact and doc["holds"] is True


def test_check_decides_subnormal_values_exactly() -> None:
    # Thm 3.1 [L140]: M > B/ρ with ρ = 1, B = 1e-320 and M = B + 1e-330 (or B - 1e-330): M and
    # B round to the same subnormal double, so float64 reads M = B/ρ (violated either way)
    v = fractions(gamma="1/10", mu=1, A=0, C=0, rho=1, B="1e-320")
    for delta, holds in ((F("1e-330"), True), (-F("1e-330"), False)):
        m = F("1e-320") + delta
        assert float(m) == float(F("1e-320"))
        _, results = engine.check(proxskip.thm31, {**v, "M": m})
        by = {r.name: r for r in results}["M > B/rho"]
        assert by.holds is holds
        assert scientific_value(by.exact["lhs"]) == m  # 11 significant digits: exact
        assert scientific_value(by.exact["rhs"]) == F("1e-320")
        assert by.as_json()["lhs"] == float(m)  # a number, with the exact string beside it


# ---------------------------------------------------------------------------------------------
# defect 2: max-step returns C = 0 exactly, never 9.25e-16
# ---------------------------------------------------------------------------------------------
COR32 = fractions(A="1/4", B="1/100", D_1=1, D_2=1, epsilon=1000, gamma=2, mu="1/8", rho="2/3")


def test_max_step_cor32_over_C_is_exactly_zero() -> None:
    thm = registry.get("proxskip.cor3.2")
    r = engine.max_step(thm, "C", COR32)
    assert r.value == 0.0 and r.exact == "0" and r.decimal == "0"
    assert r.binding == "gamma <= 1/(2(A+MC))" and r.attained
    assert engine.check(thm, {**COR32, "C": F(0)})[0]
    # the value the float scan answered before, and the smallest positive double: infeasible
    for c in (F("9.25185853854297e-16"), F(5e-324)):
        ok, results = engine.check(thm, {**COR32, "C": c})
        assert not ok and [x.name for x in results if not x.holds] == ["gamma <= 1/(2(A+MC))"]


def test_max_step_boundary_one_over_2000_prints_0_0005() -> None:
    # Thm 3.1 [L140]: γ ≤ 1/(2(A+MC)) = 1/2000; fl(0.0005) lies above 1/2000
    v = fractions(mu=1, A=1000, M=1, C=0, B=0, rho=1)
    r = engine.max_step(proxskip.thm31, "gamma", v)
    assert r.exact == "1/2000" and r.decimal == "0.0005"
    assert Fraction(r.value) < Fraction(1, 2000) < Fraction(0.0005)
    assert engine.check(proxskip.thm31, {**v, "gamma": Fraction(r.decimal)})[0]
    assert not engine.check(proxskip.thm31, {**v, "gamma": Fraction(0.0005)})[0]


def test_max_step_irrational_boundary_is_exact() -> None:
    # x² ≤ a with a = 1/8: the boundary sqrt(2)/4 is found exactly, the value lies below it
    thm = synthetic([("square", lambda x, a: sp.Le(x**2, a))])
    r = engine.max_step(thm, "x", {"a": F(1, 8)})
    assert r.exact == "sqrt(2)/4"
    assert Fraction(r.value) ** 2 <= Fraction(1, 8) and Fraction(r.decimal) ** 2 <= Fraction(1, 8)
    assert r.value == pytest.approx(math.sqrt(2) / 4, rel=1e-15)


# ---------------------------------------------------------------------------------------------
# defect 3: a boundary beyond the grid (1e40) is found; "unbounded" only when proven
# ---------------------------------------------------------------------------------------------
THM31_M = fractions(gamma="1/4", mu=1, A=1, B=1, rho="1/2")


def test_max_step_boundary_beyond_the_grid() -> None:
    # γ ≤ 1/(2(A+MC)) with γ = 1/4, A = 1: M·C ≤ 1, so M ≤ 1/C = 1e60 [L140]
    v = {**THM31_M, "C": F("1e-60")}
    r = engine.max_step(proxskip.thm31, "M", v)
    assert not r.unbounded and r.value is not None
    assert close(Fraction(r.value), Fraction(10) ** 60) and Fraction(r.value) <= 10**60
    assert r.binding == "gamma <= 1/(2(A+MC))"
    assert engine.check(proxskip.thm31, {**v, "M": Fraction(r.value)})[0]
    assert not engine.check(proxskip.thm31, {**v, "M": 2 * Fraction(10) ** 60})[0]


def test_max_step_unbounded_only_when_proven() -> None:
    # C = 0: M > B/ρ = 2 only, proven unbounded (the margin M - 2 has no root beyond the grid)
    r = engine.max_step(proxskip.thm31, "M", {**THM31_M, "C": F(0)})
    assert r.value is None and r.unbounded and not r.unbounded_unproven
    # x ≥ sqrt(x) holds for every x ≥ 1, but the margin is not a rational function of x: every
    # double from 1 up passes, unboundedness is not claimed
    thm = synthetic([("root", lambda x, a: sp.Ge(x, sp.sqrt(x) * a))])
    r = engine.max_step(thm, "x", {"a": F(1)})
    assert r.value is None and not r.unbounded and r.unbounded_unproven
    assert "could not be proven" in r.note
    assert engine.check(thm, {"x": Fraction(MAX_DOUBLE), "a": F(1)})[0]


def test_max_step_feasible_set_below_the_grid() -> None:
    # x ≤ a with a = 1e-50 (below the grid's 1e-40): the boundary is found and exact
    thm = synthetic([("cap", lambda x, a: sp.Le(x, a))])
    r = engine.max_step(thm, "x", {"a": F("1e-50")})
    assert r.exact == "1e-50" and Fraction(r.value) <= Fraction("1e-50")
    assert close(Fraction(r.value), Fraction("1e-50"))


# ---------------------------------------------------------------------------------------------
# bound: terms beyond float64's range keep a number and an exact string
# ---------------------------------------------------------------------------------------------
def test_bound_terms_beyond_the_range() -> None:
    # Thm 3.1 [L142]: τ = min{p², γμ, ρ - B/M} = 1/6; contraction (1 - τ)^T V_0 with
    # T = 1e300 underflows, neighborhood γ²(D_1 + M D_2)/τ = 6(1 + 1e600)/36 overflows
    v = fractions(gamma="1/6", mu=1, A=1, C="1/2", B=1, rho="1/2", M="1e300", p="1/2", D_1=1,
                  D_2="1e300", V_0=1, T=10**300)
    b = engine.bound(proxskip.thm31, v)
    neighborhood = Fraction(1, 36) * (1 + Fraction(10) ** 600) * 6
    assert close(scientific_value(b.exact["terms"]["neighborhood"]), neighborhood)
    assert close(scientific_value(b.exact["value"]), neighborhood)
    # (5/6)^(1e300) = 10^(1e300·log10(5/6)): exponent and mantissa from mpmath independently
    with mpmath.workdps(400):
        log10 = mpmath.mpf(10) ** 300 * mpmath.log10(mpmath.mpf(5) / 6)
        exponent = int(mpmath.floor(log10))
        mantissa = float(mpmath.power(10, log10 - exponent))
    text = b.exact["terms"]["contraction"]
    assert int(text.partition("e")[2]) == exponent
    assert float(text.partition("e")[0]) == pytest.approx(mantissa, rel=1e-12)
    doc = b.as_json(proxskip.thm31)
    assert doc["terms"]["neighborhood"] == MAX_DOUBLE and doc["value"] == MAX_DOUBLE
    assert doc["terms"]["contraction"] == 0.0 and doc["exact"] == b.exact


# ---------------------------------------------------------------------------------------------
# properties over every registered theorem
# ---------------------------------------------------------------------------------------------
def synthetic(conditions: list[tuple[str, object]]) -> Theorem:
    notation = Notation("synthetic")
    x = notation.add("x", POSITIVE, "varied symbol")
    a = notation.add("a", NONNEGATIVE, "parameter")
    return Theorem(id="synthetic.exact", paper="synthetic", title="t", source="L0", statement="",
                   notation=notation,
                   conditions=[Condition(n, rel(x, a), "L0") for n, rel in conditions],
                   bound=[Term("value", x, "L0")])


def magnitudes() -> st.SearchStrategy[Fraction]:
    """Decimal numbers from 1e-320 to about 1e308 (1 to 4 significant digits)."""
    return st.builds(lambda m, e: Fraction(m, 1000) * Fraction(10) ** e,
                     st.integers(1000, 9999), st.integers(-320, 307))


@cache
def domain_values(dom: Domain) -> st.SearchStrategy[Fraction]:
    """Values inside ``dom``: magnitudes 1e-320..1e308 (both signs where allowed), simple
    fractions, 0 and the closed ends."""
    if dom.integer:
        lo = int(dom.lo) if math.isfinite(dom.lo) else -10
        pool = st.one_of(st.integers(lo, lo + 20), st.integers(lo, 10**6),
                         st.integers(0, 300).map(lambda k: 10**k)).map(Fraction)
    else:
        signed = st.builds(lambda v, negative: -v if negative else v, magnitudes(),
                           st.booleans())
        simple = st.builds(Fraction, st.integers(-20, 20), st.integers(1, 20))
        ends = [Fraction(e) for e, is_open in ((dom.lo, dom.lo_open), (dom.hi, dom.hi_open))
                if math.isfinite(e) and not is_open]
        pool = st.one_of(signed, magnitudes(), simple, st.sampled_from([F(0), F(1), *ends]))
    return pool.filter(dom.contains)


def exact_verdicts(thm: Theorem, values: dict[str, Fraction]) -> dict[str, bool | None]:
    """Each condition decided with sympy alone: rationals substituted, the margin decided
    exactly if rational, by 100-digit ``evalf`` otherwise; None where the exact value is
    undefined in sympy (a division by zero, whose convention test_engine.py covers) or too close
    to zero for 100 digits."""
    out: dict[str, bool | None] = {}
    for c, (lhs, rhs) in zip(thm.conditions, expanded_sides(thm.id), strict=True):
        subs = {s: sp.Rational(values[s.name].numerator, values[s.name].denominator)
                for s in (lhs - rhs).free_symbols}
        try:
            lhs, rhs = lhs.xreplace(subs), rhs.xreplace(subs)
        except (ValueError, TypeError):  # e.g. Min(0/0, ...): undefined in sympy
            out[c.name] = None
            continue
        margin = (rhs - lhs) if isinstance(c.rel, (sp.Le, sp.Lt)) else (lhs - rhs)
        if margin.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
            out[c.name] = None
            continue
        if not margin.is_Rational:
            value, scale = margin.evalf(100), (abs(lhs) + abs(rhs)).evalf(100)
            if not value.is_real or abs(value) <= scale * sp.Float("1e-90", 100):
                out[c.name] = None
                continue
            margin = value
        out[c.name] = bool(margin > 0) if isinstance(c.rel, (sp.Lt, sp.Gt)) else bool(margin >= 0)
    return out


@cache
def expanded_sides(theorem_id: str) -> list[tuple[sp.Expr, sp.Expr]]:
    thm = registry.get(theorem_id)
    return [(thm.expand(c.rel.lhs), thm.expand(c.rel.rhs)) for c in thm.conditions]


@cache
def condition_inputs(theorem_id: str) -> list[str]:
    return registry.get(theorem_id).condition_inputs()


@st.composite
def theorem_point(draw: st.DrawFn, vary: bool = False) -> tuple[Theorem, str | None, dict]:
    thm = draw(st.sampled_from(THEOREMS))
    names = condition_inputs(thm.id)
    varied = draw(st.sampled_from(names)) if vary else None
    values = {n: draw(domain_values(thm.notation.spec(n).domain), label=n) for n in names
              if n != varied}
    return thm, varied, values


def check_agrees(point: tuple[Theorem, str | None, dict]) -> None:
    thm, _, values = point
    _, results = engine.check(thm, values)
    oracle = exact_verdicts(thm, values)
    for r in results:
        if oracle[r.name] is not None:
            assert r.holds == oracle[r.name], (thm.id, r.name, values, r)


def max_step_passes(point: tuple[Theorem, str | None, dict]) -> None:
    thm, vary, values = point
    r = engine.max_step(thm, vary, values)
    if r.value is None:
        return
    for text in (Fraction(r.value), Fraction(repr(r.value)), Fraction(r.decimal)):
        ok, results = engine.check(thm, {**values, vary: text})
        assert ok, (thm.id, vary, values, r, [x for x in results if not x.holds])


def _profile(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@_profile(80)
@given(theorem_point())
def test_check_agrees_with_exact_evaluation(point: tuple) -> None:
    check_agrees(point)


@_profile(15)
@given(theorem_point(vary=True))
def test_max_step_value_passes_check(point: tuple) -> None:
    max_step_passes(point)


@pytest.mark.slow
@_profile(2000)
@given(theorem_point())
def test_check_agrees_with_exact_evaluation_long(point: tuple) -> None:
    check_agrees(point)


@pytest.mark.slow
@_profile(2000)
@given(theorem_point(vary=True))
def test_max_step_value_passes_check_long(point: tuple) -> None:
    max_step_passes(point)


def test_bound_with_terms_of_opposite_infinite_sign_is_summed_exactly() -> None:
    """Found by the long fuzz profile: terms +∞-sized and −∞ made ``math.fsum`` raise; the sum
    is taken exactly instead (here −∞: (n − P)/(n − 1) at n = 1 is −∞ for P > n)."""
    notation = Notation("toy")
    n_, P_, big = (notation.add(name, POSITIVE, name, name, "test") for name in ("n", "P", "big"))
    thm = Theorem(id="toy.infsum", paper="toy", title="opposite infinities", source="test",
                  statement="test", notation=notation,
                  bound=[Term("huge", big**3, "test"), Term("minus", (n_ - P_) / (n_ - 1), "test")])
    result = engine.bound(thm, {"n": Fraction(1), "P": Fraction(2), "big": Fraction(10**300)})
    assert result.value == -math.inf or math.isnan(result.value)
    assert result.exact["value"] == "-inf"
