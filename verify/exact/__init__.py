"""Exact analyses of the methods on their test problems (one module per paper), and shortcuts
to the engine shared by them: :func:`max_step` (the engine's max-step decided on the conditions
that contain the varied symbol only), :func:`bound_value` (a bound's value without re-deciding
conditions that do not change between calls) and :func:`bound_along` (the bound as a function of
one symbol, the others fixed).

The shortcuts work on reduced copies of a theorem (:func:`split_conditions`,
:func:`unconditioned`): conditions and terms with the derived quantities already substituted
(the expressions the engine compiles for the theorem itself), no derived quantities left, so a
copy compiles without re-expanding."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction

import numpy as np

from fedbounds import engine
from fedbounds import exact as exact_arithmetic
from fedbounds.model import Condition, Theorem

_SPLIT: dict[tuple[int, str], tuple[Theorem, Theorem, Theorem]] = {}
_UNCONDITIONED: dict[int, tuple[Theorem, Theorem]] = {}


def _expanded(thm: Theorem, conditions: list) -> Theorem:
    """``thm`` with only the compiled ``conditions`` (expanded), no derived quantities, no bound."""
    return replace(thm, derived={}, bound=[], conditions=[
        Condition(cc.cond.name, cc.expanded, cc.cond.source, cc.cond.note) for cc in conditions])


def split_conditions(thm: Theorem, vary: str) -> tuple[Theorem, Theorem]:
    """Copies of ``thm`` (without bound or derived quantities) with only the conditions that
    contain ``vary`` once derived quantities are substituted, and with only the others (cached
    per theorem object and symbol)."""
    key = (id(thm), vary)
    if key not in _SPLIT or _SPLIT[key][0] is not thm:
        conditions = engine.compiled(thm).conditions
        with_vary = [cc for cc in conditions if vary in cc.args]
        without = [cc for cc in conditions if vary not in cc.args]
        _SPLIT[key] = (thm, _expanded(thm, with_vary), _expanded(thm, without))
    return _SPLIT[key][1], _SPLIT[key][2]


def _restricted(thm: Theorem, values: Mapping[str, Fraction]) -> dict[str, Fraction]:
    names = set(engine.compiled(thm).condition_inputs)
    return {n: v for n, v in values.items() if n in names}


_BORDERLINE = 1e-9  # the engine's: a margin within 1e-9 of the scale is decided exactly


def _tight(result: engine.ConditionResult) -> bool:
    """Whether a condition's margin is one the engine re-decides exactly (borderline, not
    finite, or beyond float64)."""
    scale = max(abs(result.lhs), abs(result.rhs))
    return bool(result.exact) or result.undecided or not math.isfinite(result.margin) or \
        not math.isfinite(scale) or abs(result.margin) <= _BORDERLINE * scale


def max_step(thm: Theorem, vary: str, values: Mapping[str, Fraction]) -> engine.MaxStepResult:
    """:func:`fedbounds.engine.max_step` of ``vary`` at ``values`` (which may hold more names
    than the conditions use); when a condition without ``vary`` is tight, computed on the
    conditions that contain ``vary``.

    A condition without ``vary`` is the same at every value of it: if it holds, it changes
    neither the feasible set nor the failing (binding) conditions, so max-step on the others
    finds the same value. When it is tight (e.g. the condition that set an earlier step size at
    its max-step) the engine re-decides it in exact arithmetic at every probe, which is slow:
    then the max-step runs on :func:`split_conditions`' copy. The conditions without ``vary``
    are decided once with ``vary`` = 1 (any value would do); if one fails, or 1 is outside the
    domain of ``vary``, the engine's own max-step answers."""
    given = _restricted(thm, values)
    if vary in given or not thm.notation.spec(vary).domain.contains(1):
        return engine.max_step(thm, vary, given)
    _, results = engine.check(thm, {**given, vary: Fraction(1)})
    others = [(cc, r) for cc, r in zip(engine.compiled(thm).conditions, results, strict=True)
              if vary not in cc.args]
    # a tight comparison of two symbols or numbers (P ≤ n at P = n) is decided exactly at once:
    # only longer tight conditions are worth the copy (a compile)
    if all(r.holds for _, r in others) and any(
            _tight(r) and not (cc.expanded.lhs.is_Atom and cc.expanded.rhs.is_Atom)
            for cc, r in others):
        with_vary, _ = split_conditions(thm, vary)
        return engine.max_step(with_vary, vary, _restricted(with_vary, values))
    return engine.max_step(thm, vary, given)


def unconditioned(thm: Theorem) -> Theorem:
    """``thm`` without its conditions and with its bound terms expanded, no derived quantities
    (cached per theorem object): its bound's value and terms are those of ``thm`` (its derived
    quantities are not computed), without deciding the conditions."""
    key = id(thm)
    if key not in _UNCONDITIONED or _UNCONDITIONED[key][0] is not thm:
        terms = [replace(t, expr=e)
                 for t, e in zip(thm.bound, engine.compiled(thm).term_exprs, strict=True)]
        _UNCONDITIONED[key] = (thm, replace(thm, conditions=[], derived={}, bound=terms))
    return _UNCONDITIONED[key][1]


def bound_value(thm: Theorem, values: Mapping[str, Fraction]) -> float:
    """The value of ``thm``'s bound at ``values`` (:func:`fedbounds.engine.bound`'s ``value``,
    the same float), without deciding the conditions: for a caller that decides them once for
    many values of a symbol they do not contain (e.g. the horizon T)."""
    bare = unconditioned(thm)
    names = set(engine.compiled(bare).names)
    return engine.bound(bare, {n: v for n, v in values.items() if n in names}).value


def bound_along(thm: Theorem, values: Mapping[str, Fraction], symbol: str
                ) -> Callable[[Fraction], float]:
    """x ↦ the value of ``thm``'s bound at ``values`` with ``symbol`` = x (the float
    :func:`bound_value` and :func:`fedbounds.engine.bound` give), conditions not decided.

    The engine evaluates the compiled terms in float64 at the inputs' nearest floats and sums
    them with ``math.fsum`` when every input is a normal float and no term raises a
    floating-point exception or is not finite; that is done here with the fixed inputs
    converted once (and validated once). Anything else goes to :func:`bound_value`. The terms
    are ``thm``'s own compiled functions (no copy to compile); inputs only the conditions use
    take a placeholder there."""
    compiled = engine.compiled(thm)
    term_names = {s.name for e in compiled.term_exprs for s in e.free_symbols}
    point = {n: Fraction(v) for n, v in values.items() if n in term_names and n != symbol}
    engine.validate(thm, point, sorted(term_names - {symbol}))
    domain = thm.notation.spec(symbol).domain
    base = {n: exact_arithmetic.to_float(v) for n, v in point.items()}
    normal = all(v == 0 or exact_arithmetic.MIN_NORMAL <= abs(f) <= exact_arithmetic.MAX_FLOAT
                 for v, f in zip(point.values(), base.values(), strict=True))
    terms = [f for _, f in compiled.terms]

    def value(x: Fraction) -> float:
        x = Fraction(x)
        f = exact_arithmetic.to_float(x)
        if normal and domain.contains(x) and (
                x == 0 or exact_arithmetic.MIN_NORMAL <= abs(f) <= exact_arithmetic.MAX_FLOAT):
            args = [np.float64(f if n == symbol else base.get(n, 1.0)) for n in compiled.names]
            floats = []
            for term in terms:
                try:
                    with np.errstate(all="raise"):
                        v = complex(term(*args))
                except (FloatingPointError, ZeroDivisionError, OverflowError, ValueError,
                        TypeError):
                    break
                if v.imag != 0 or not math.isfinite(v.real):
                    break
                floats.append(v.real)
            else:
                total = math.fsum(floats)
                if math.isfinite(total):
                    return total
        return bound_value(thm, {**point, symbol: x})

    return value
