"""Exact evaluation of theorem expressions at rational points: the engine's fallback.

The engine evaluates everything in float64 first; where float64 cannot decide (overflow,
underflow, a division by zero, a NaN, a borderline margin) it calls :func:`evaluate`, which
substitutes the exact rational inputs into the sympy expression and evaluates it in the extended
reals, and :func:`sign`, which decides the sign of the result: exactly for a rational, by
``evalf`` at increasing precision (certified: ``strict=True``) for an irrational value.

Conventions (those of the float path, made exact):

* ``c/0`` (any power ``0**e`` with ``e < 0``) is ``+oo``: a cap ``x <= a/b`` with ``b = 0`` is
  no cap; ``0/0``, ``oo - oo`` and ``0*oo`` are undefined (``nan``), as are square roots and
  logarithms of negative numbers; ``log(0) = -oo``.
* A rational power too large to expand (e.g. ``(1 - tau)**T`` with ``T = 1e300``) is kept as a
  :class:`LargePower`, which ``evalf`` evaluates to any requested precision with mpmath.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

import mpmath
import sympy as sp
from sympy.core.evalf import PrecisionExhausted

__all__ = ["LargePower", "Undecidable", "beyond_float", "bisect", "boundary_root", "decide",
           "decimal_text", "difference", "evaluate", "exact_text", "in_float_range",
           "json_number", "keeps_sign_beyond", "largest_integer", "largest_passing", "rational",
           "resolve_branches", "scientific", "shortest_decimal", "sign", "to_float", "total",
           "univariate"]

MAX_FLOAT = sys.float_info.max
MIN_NORMAL = sys.float_info.min
_MAX_POWER_BITS = 100_000  # exact powers beyond this size are kept as LargePower
_PRECISIONS = (30, 100, 300, 1000, 3000)  # decimal digits tried by sign()
_TINY = 5e-324


class Undecidable(ArithmeticError):
    """The sign of a number could not be certified (e.g. a zero sympy cannot prove zero)."""


def rational(value: Fraction | int | sp.Rational) -> sp.Rational:
    """A user value as a sympy Rational (exact)."""
    value = value if isinstance(value, sp.Rational) else Fraction(value)
    return value if isinstance(value, sp.Rational) else sp.Rational(value.numerator,
                                                                    value.denominator)


class LargePower(sp.Function):
    """``base**exponent`` (real base, rational exponent) too large to expand exactly (millions
    of digits): ``evalf`` computes it with mpmath at the precision asked for, plus the bits by
    which the exponent amplifies rounding errors."""

    is_extended_real = True
    is_finite = True

    def _eval_evalf(self, prec: int) -> sp.Float:
        base, exponent = self.args
        wp = prec + int(abs(exponent)).bit_length() + 30
        with mpmath.workprec(wp):
            b = mpmath.mpf(base.evalf(mpmath.libmp.prec_to_dps(wp) + 5)._mpf_)
            value = mpmath.power(abs(b), mpmath.mpf(exponent.p) / exponent.q)
            if b < 0 and exponent.is_odd:
                value = -value
        return sp.Float._new(mpmath.mpf(value, prec=prec)._mpf_, prec)


def _large_power(base: sp.Expr, exponent: sp.Expr) -> bool:
    """Whether ``base**exponent`` (numbers) would be too large to expand exactly."""
    if not exponent.is_Rational or abs(exponent.p) < 64:
        return False
    if base.is_Rational:
        if base in (sp.S.One, sp.S.NegativeOne):
            return False
        bits = max(abs(base.p).bit_length(), base.q.bit_length())
        return abs(exponent.p) * bits > _MAX_POWER_BITS
    return abs(exponent.p) > 4096  # an irrational base: sympy may expand sqrt(2)**n exactly


def _is_nan(x: sp.Basic) -> bool:
    return x is sp.nan or x is sp.zoo


def _pow(base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
    if _is_nan(base) or _is_nan(exponent):
        return sp.nan
    if base.is_zero:
        s = sign(exponent)
        return sp.S.Zero if s > 0 else (sp.S.One if s == 0 else sp.oo)
    if exponent.is_zero:
        return sp.S.One
    if base.is_infinite:
        if sign(exponent) < 0:
            return sp.S.Zero
        if base is sp.oo:
            return sp.oo
        return (sp.oo if exponent.is_even else -sp.oo) if exponent.is_integer else sp.nan
    if exponent.is_infinite:
        return _real(sp.Pow(base, exponent))
    base_sign = sign(base)
    if base_sign < 0 and not exponent.is_integer:
        return sp.nan  # a complex number: undefined in the reals (NaN in float64)
    if _large_power(base, exponent):
        return LargePower(base, exponent)
    return _real(sp.Pow(base, exponent))


def _real(x: sp.Expr) -> sp.Expr:
    return sp.nan if x.has(sp.zoo, sp.nan, sp.I) else x


def _add(args: list[sp.Expr]) -> sp.Expr:
    if any(_is_nan(a) for a in args):
        return sp.nan
    infinite = {a for a in args if a.is_infinite}
    if infinite:
        return sp.nan if len(infinite) > 1 else infinite.pop()
    return sp.Add(*args)


def _mul(args: list[sp.Expr]) -> sp.Expr:
    if any(_is_nan(a) for a in args):
        return sp.nan
    infinite = [a for a in args if a.is_infinite]
    if not infinite:
        return sp.Mul(*args)
    s = 1
    for a in args:
        sa = 1 if a is sp.oo else -1 if a is -sp.oo else sign(a)
        if sa == 0:
            return sp.nan  # 0 * oo
        s *= sa
    return sp.oo if s > 0 else -sp.oo


def _min_max(func: type, args: list[sp.Expr]) -> sp.Expr:
    if any(_is_nan(a) for a in args):
        return sp.nan
    best = args[0]
    for a in args[1:]:
        d = sign(_add([a, _mul([sp.S.NegativeOne, best])])) if not (
            a.is_infinite or best.is_infinite) else (1 if a is sp.oo or best is -sp.oo else -1)
        if (func is sp.Max and d > 0) or (func is sp.Min and d < 0):
            best = a
    return best


def _truth(cond: sp.Basic, env: Mapping[sp.Symbol, sp.Expr]) -> bool:
    if cond in (sp.true, True):
        return True
    if cond in (sp.false, False):
        return False
    if isinstance(cond, sp.And):
        return all(_truth(a, env) for a in cond.args)
    if isinstance(cond, sp.Or):
        return any(_truth(a, env) for a in cond.args)
    if isinstance(cond, sp.Not):
        return not _truth(cond.args[0], env)
    if isinstance(cond, (sp.Le, sp.Lt, sp.Ge, sp.Gt, sp.Eq, sp.Ne)):
        lhs, rhs = _ev(cond.lhs, env), _ev(cond.rhs, env)
        if _is_nan(lhs) or _is_nan(rhs):
            raise ValueError("an undefined side in a Piecewise condition")
        if lhs.is_infinite or rhs.is_infinite:
            d = 0 if lhs == rhs else (1 if lhs is sp.oo or rhs is -sp.oo else -1)
        else:
            d = sign(_add([lhs, _mul([sp.S.NegativeOne, rhs])]))
        return {sp.Le: d <= 0, sp.Lt: d < 0, sp.Ge: d >= 0, sp.Gt: d > 0, sp.Eq: d == 0,
                sp.Ne: d != 0}[type(cond)]
    raise ValueError(f"an unsupported Piecewise condition {cond}")


def _ev(node: sp.Basic, env: Mapping[sp.Symbol, sp.Expr]) -> sp.Expr:
    if node.is_Symbol:
        return env[node]
    if node.is_Number or node.is_NumberSymbol or not node.args:
        return _real(node) if node is not sp.zoo else sp.nan
    if isinstance(node, sp.Piecewise):
        for expr, cond in node.args:
            try:
                if _truth(cond, env):
                    return _ev(expr, env)
            except ValueError:  # undefined, as NaN in float64
                return sp.nan
        return sp.nan
    args = [_ev(a, env) for a in node.args]
    if isinstance(node, sp.Add):
        return _add(args)
    if isinstance(node, sp.Mul):
        return _mul(args)
    if isinstance(node, sp.Pow):
        return _pow(*args)
    if isinstance(node, (sp.Min, sp.Max)):
        return _min_max(type(node), args)
    if any(_is_nan(a) for a in args):
        return sp.nan
    if isinstance(node, sp.log):
        s = sign(args[0])
        if s < 0:
            return sp.nan
        return -sp.oo if s == 0 else (sp.oo if args[0] is sp.oo else _real(sp.log(args[0])))
    if isinstance(node, sp.exp):
        a = args[0]
        return sp.S.Zero if a is -sp.oo else (sp.oo if a is sp.oo else sp.exp(a))
    return _real(node.func(*args))


def evaluate(expr: sp.Expr, values: Mapping[str, Fraction | sp.Expr]) -> sp.Expr:
    """The value of ``expr`` with the named exact values substituted, in the extended reals.

    Returns a sympy number: a Rational, ``oo``/``-oo``, ``nan`` (undefined, e.g. ``0/0``) or an
    exact irrational expression (``sqrt(2)/4``, a :class:`LargePower`). May raise
    :class:`Undecidable` when a Min/Max/Piecewise branch cannot be decided."""
    env = {}
    for s in expr.free_symbols:
        v = values[s.name]
        env[s] = v if isinstance(v, sp.Basic) else rational(v)
    return _ev(expr, env)


def difference(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """``a - b`` in the extended reals (``oo - oo`` is ``nan``)."""
    return _add([a, _mul([sp.S.NegativeOne, b])])


def total(terms: list[sp.Expr]) -> sp.Expr:
    """The sum of numbers in the extended reals (``oo - oo`` is ``nan``)."""
    return _add(list(terms)) if terms else sp.S.Zero


def decide(lhs: sp.Expr, rhs: sp.Expr, sign_: int, strict: bool, values: Mapping
           ) -> tuple[dict[str, sp.Expr], bool, bool]:
    """A condition ``lhs <= rhs`` (``sign_`` +1, margin ``rhs - lhs``; -1 for ``>=``) decided
    exactly at ``values``: ``({"lhs", "rhs", "margin"}, holds, undecided)``. An undefined
    margin (``0/0``, a square root of a negative number) is violated; an undecidable one is
    not counted as holding."""
    out = dict.fromkeys(("lhs", "rhs", "margin"), sp.nan)
    try:
        out["lhs"], out["rhs"] = evaluate(lhs, values), evaluate(rhs, values)
        out["margin"] = difference(out["rhs"], out["lhs"]) if sign_ > 0 else \
            difference(out["lhs"], out["rhs"])
        s = sign(out["margin"])
        return out, s > 0 or (s == 0 and not strict), False
    except ValueError:
        return out, False, False
    except Undecidable:
        return out, False, True


def univariate(lhs: sp.Expr, rhs: sp.Expr, sign_: int, x: sp.Symbol, values: Mapping
               ) -> sp.Expr | None:
    """The margin ``sign_ * (rhs - lhs)`` as an expression in ``x`` alone, the other symbols
    exact; None if it has a symbolic exponent (a huge exact power) or divides by zero."""
    if any(not p.exp.is_number for p in (lhs - rhs).atoms(sp.Pow)):
        return None
    m = ((rhs - lhs) * sign_).xreplace({s: rational(values[s.name])
                                        for s in (lhs - rhs).free_symbols if s != x})
    return None if m.has(sp.zoo, sp.nan, sp.oo, -sp.oo) else m


def beyond_float(values: Mapping[str, sp.Expr]) -> dict[str, str]:
    """Scientific strings of the values float64 cannot hold (not NaN: that is undefined)."""
    return {k: scientific(v) for k, v in values.items()
            if v is not sp.nan and not in_float_range(v)}


def json_number(x: float, exact_form: str | None) -> float | None:
    """A float for JSON: None if undefined or infinite, saturated at +-1.7976931348623157e308
    if finite beyond the range (``exact_form`` then holds the value)."""
    if math.isnan(x) or (math.isinf(x) and exact_form in (None, "inf", "-inf")):
        return None
    return math.copysign(MAX_FLOAT, x) if math.isinf(x) else x


def sign(x: sp.Expr) -> int:
    """-1, 0 or +1: the sign of the number ``x`` (``nan`` raises :class:`ValueError`).

    Rationals and infinities exactly; anything else with ``evalf(strict=True)`` at 30, 100, 300,
    1000, 3000 digits (a nonzero result at full accuracy certifies the sign), then
    ``expand``/``simplify`` to prove a zero; :class:`Undecidable` if all of that fails."""
    if _is_nan(x):
        raise ValueError("the sign of an undefined value (nan)")
    if x.is_Rational:
        return (x.p > 0) - (x.p < 0)
    if x is sp.oo:
        return 1
    if x is -sp.oo:
        return -1
    if x.is_Float:
        return _float_sign(x)
    if x.is_extended_real is False:
        raise ValueError(f"the sign of a non-real value {x}")
    for digits in _PRECISIONS:
        try:
            v = x.evalf(digits, strict=True, maxn=4 * digits)
        except PrecisionExhausted:
            continue
        except (ValueError, TypeError):
            break
        if v.is_zero:
            return 0
        if v.is_Float or v.is_Rational:
            return _float_sign(v)
    for transform in (sp.expand, sp.simplify):
        try:
            if transform(x) == 0:
                return 0
        except (ValueError, TypeError, RecursionError):
            pass
    raise Undecidable(f"the sign of {sp.sstr(x)[:200]} could not be certified at "
                      f"{_PRECISIONS[-1]} digits")


def _float_sign(x: sp.Expr) -> int:
    return int(bool(x > 0)) - int(bool(x < 0))


def _mpf(x: sp.Expr, digits: int = 40) -> mpmath.mpf:
    if x.is_Rational:
        with mpmath.workdps(digits + 10):
            return mpmath.mpf(x.p) / x.q
    v = x.evalf(digits)
    if not v.is_Float and not v.is_Rational:
        raise ValueError(f"not a real number: {x}")
    return mpmath.mpf(sp.Float(v)._mpf_)


@lru_cache(maxsize=4096)
def to_float(x: sp.Expr | Fraction) -> float:
    """The nearest float64 (``inf`` beyond the range, ``0.0``/subnormal below it, ``nan`` for an
    undefined value)."""
    if not isinstance(x, sp.Basic):
        x = rational(x)
    if _is_nan(x):
        return math.nan
    if x.is_infinite:
        return math.inf if x is sp.oo else -math.inf
    if x.is_Rational:
        try:
            return float(Fraction(x.p, x.q))
        except OverflowError:
            return math.inf if x.p > 0 else -math.inf
    try:
        return float(_mpf(x, 20))
    except (ValueError, TypeError):
        return math.nan


def in_float_range(x: sp.Expr | Fraction) -> bool:
    """Whether ``x`` is zero or a finite number that float64 holds to full precision (normal)."""
    if isinstance(x, Fraction):
        x = rational(x)
    if _is_nan(x) or x.is_infinite:
        return False
    return bool(x.is_zero) or MIN_NORMAL <= abs(to_float(x)) <= MAX_FLOAT


def scientific(x: sp.Expr | Fraction, digits: int = 17) -> str:
    """``x`` in scientific notation with ``digits`` significant digits, at any magnitude
    (``1.234e+400``, ``2.3e-310``); ``inf``/``-inf`` for infinities, ``nan`` if undefined."""
    if isinstance(x, Fraction):
        x = rational(x)
    if _is_nan(x):
        return "nan"
    if x.is_infinite:
        return "inf" if x is sp.oo else "-inf"
    if x.is_zero:
        return "0"
    with mpmath.workdps(digits + 10):
        return mpmath.nstr(_mpf(x, digits + 10), digits)


# ---------------------------------------------------------------------------------------------
# univariate analysis (max-step): branches, roots, sign invariance
# ---------------------------------------------------------------------------------------------
def resolve_branches(expr: sp.Expr, x: sp.Symbol, at: sp.Rational
                     ) -> tuple[sp.Expr, list[sp.Expr]]:
    """``expr`` (univariate in ``x``) with every Min/Max/Piecewise replaced by the branch active
    at ``x = at``, and the expressions whose sign changes could switch a branch (pairwise
    differences of Min/Max arguments, Piecewise conditions' sides). Raises :class:`Undecidable`
    or ``ValueError`` where a branch cannot be chosen."""
    critical: list[sp.Expr] = []

    def walk(node: sp.Basic) -> sp.Basic:
        if x not in node.free_symbols or not node.args:
            return node
        if isinstance(node, sp.Piecewise):
            for expr_, cond in node.args:
                for rel in cond.atoms(sp.Rel):
                    critical.append(walk(rel.lhs) - walk(rel.rhs))
                if _truth(cond, {x: at}):
                    return walk(expr_)
            raise ValueError("no Piecewise branch applies")
        args = [walk(a) for a in node.args]
        if isinstance(node, (sp.Min, sp.Max)):
            critical.extend(a - b for i, a in enumerate(args) for b in args[i + 1:])
            values = [evaluate(a, {x.name: at}) for a in args]
            best = _min_max(type(node), values)
            return args[values.index(best)]
        return node.func(*args)

    return walk(expr), critical


def _polys(expr: sp.Expr, x: sp.Symbol) -> list[sp.Poly] | None:
    """Numerator and denominator of ``expr`` as polynomials in ``x`` over the rationals."""
    out = []
    for part in sp.fraction(sp.together(expr)):
        if x not in part.free_symbols:
            continue
        try:
            poly = sp.Poly(part, x)
        except sp.PolynomialError:
            return None
        if poly.gens != (x,) or not (poly.domain.is_ZZ or poly.domain.is_QQ):
            return None
        out.append(poly)
    return out


def keeps_sign_beyond(margins: list[sp.Expr], x: sp.Symbol, start: sp.Rational) -> bool:
    """Whether each univariate margin provably keeps one sign on ``(start, oo)``: with its
    branches as at ``2*start``, it and every branch switch are rational functions over the
    rationals whose numerators and denominators have no real root in ``[start, oo)``."""
    for m in margins:
        try:
            resolved, critical = resolve_branches(m, x, 2 * start)
            for e in (resolved, *critical):
                polys = _polys(e, x)
                if polys is None or any(p.count_roots(start, None) for p in polys):
                    return False
        except (ValueError, TypeError, ArithmeticError, sp.PolynomialError):
            return False
    return True


def _roots_between(expr: sp.Expr, x: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> list[sp.Expr]:
    """Exact real roots in ``[lo, hi]`` of the numerator of ``expr`` where its denominator is
    nonzero (rational coefficients, or algebraic ones up to degree 2), largest first; [] when
    they cannot be found exactly. The roots are exact by construction (``roots``,
    ``real_roots``): no numerical zero test, which could not certify a zero anyway."""
    num, den = sp.fraction(sp.together(expr))
    if x not in num.free_symbols:
        return []
    poly = sp.Poly(num, x)
    sizes = [max(abs(sp.Rational(k).p), sp.Rational(k).q).bit_length()
             for k in poly.coeffs() if k.is_Rational]
    if poly.gens != (x,) or poly.degree() > 40 or max(sizes, default=0) > 400:
        return []  # huge coefficients: factoring a discriminant could take minutes
    if poly.degree() <= 2:
        candidates = list(sp.roots(poly, filter="R"))
    elif poly.domain.is_ZZ or poly.domain.is_QQ:
        candidates = list(set(sp.real_roots(poly)))
    else:
        return []
    inside = [r for r in candidates if _sign_or(difference(r, lo)) >= 0
              and _sign_or(difference(hi, r)) >= 0 and _sign_or(evaluate(den, {x.name: r})) != 0]
    return sorted(inside, key=to_float, reverse=True)


def _sign_or(x: sp.Expr) -> int:
    """``sign(x)``, or -2 where it is undefined or undecidable."""
    try:
        return sign(x)
    except (ValueError, TypeError, Undecidable):
        return -2


def boundary_root(margins: list[sp.Expr], x: sp.Symbol, lo: Fraction, hi: Fraction
                  ) -> sp.Expr | None:
    """An exact number in ``[lo, hi]`` where one of the univariate ``margins`` is exactly 0:
    rationals with small denominators near ``lo`` where a margin is rational and 0, then the
    real roots of a margin's numerator (its branches as at the midpoint); None if none found."""
    def zero_at(m: sp.Expr, r: sp.Rational) -> bool:
        try:
            value = evaluate(m, {x.name: r})
        except (ValueError, TypeError, Undecidable):
            return False
        return value.is_Rational and value == 0

    guesses = {lo.limit_denominator(10**k) for k in (1, 3, 6, 9, 12)} | {lo, hi}
    for r in sorted(guesses, reverse=True):
        if lo <= r <= hi and any(zero_at(m, rational(r)) for m in margins):
            return rational(r)
    for m in margins:
        try:
            resolved, _ = resolve_branches(m, x, rational((lo + hi) / 2))
            roots = _roots_between(resolved, x, rational(lo), rational(hi))
        except (ValueError, TypeError, ArithmeticError, sp.PolynomialError):
            continue
        if roots:
            return roots[0]
    return None


def _exponent10(x: Fraction) -> int:
    """floor(log10(|x|)) for a nonzero rational, exactly."""
    x = abs(x)
    e = len(str(x.numerator)) - len(str(x.denominator))
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    return e


def shortest_decimal(ok: Callable[[Fraction], bool], at_least: float, hi: sp.Expr | Fraction,
                     inclusive: bool) -> str | None:
    """The shortest decimal ``d`` (up to 17 digits) with ``float(d) >= at_least`` and
    ``d <= hi`` (``<`` unless ``inclusive``) that ``ok`` accepts, as typed (``0.0005``)."""
    if isinstance(hi, sp.Basic):
        hi = Fraction(hi.p, hi.q) if hi.is_Rational else Fraction(str(hi.evalf(30)))
    if hi == 0:
        return "0" if inclusive and at_least <= 0 and ok(Fraction(0)) else None
    e = _exponent10(hi)
    for digits in range(1, 18):
        q = Fraction(10) ** (e - digits + 1)
        d = (hi // q) * q
        if d == hi and not inclusive:
            d -= q
        if to_float(rational(d)) >= at_least and ok(d):
            return decimal_text(d)
    return None


def _midpoint(a: float, b: float) -> float:
    """Geometric midpoint of same-signed ends far apart (0 counts as the tiniest float)."""
    lo, hi = min(a, b), max(a, b)
    if lo < 0 < hi:
        return 0.0
    s = 1.0 if hi > 0 else -1.0
    small, large = sorted((abs(lo), abs(hi)))
    if large / max(small, _TINY) > 2:
        return s * math.sqrt(max(small, _TINY)) * math.sqrt(large)
    return s * (0.5 * small + 0.5 * large)


def bisect(ok: Callable[[float], bool], a: float, b: float) -> tuple[float, float]:
    """Shrink [a, b] (``ok`` differs at the ends) to adjacent floats; returns (a, b)."""
    fa = ok(a)
    for _ in range(2200):
        mid = _midpoint(a, b)
        if mid in (a, b):
            break
        if ok(mid) == fa:
            a = mid
        else:
            b = mid
    return a, b


def largest_passing(ok: Callable[[float], bool], v: float, lo: float) -> float | None:
    """The largest float at most ``v`` (64 ulps down at most, not below ``lo``) ``ok``
    accepts."""
    for _ in range(64):
        if ok(v):
            return v
        v = math.nextafter(v, -math.inf)
        if v < lo:
            break
    return None


def largest_integer(ok: Callable[[Fraction], bool], top: float, segments: list
                    ) -> int | None:
    """The largest integer at most ``top`` in the ``[lo, hi]`` segments (last first, 1000
    integers each at most) that ``ok`` accepts."""
    for lo, hi in reversed(segments):
        k = math.floor(min(hi, top))
        for n in range(k, max(math.ceil(lo), k - 1000) - 1, -1):
            if ok(Fraction(n)):
                return n
    return None


def decimal_text(d: Fraction) -> str:
    """A decimal as a user types it: ``0``, ``6``, ``0.0005``, ``1e+60``."""
    if d.denominator == 1 and abs(d) < 10**16:
        return str(d.numerator)
    f = to_float(rational(d))
    return repr(f) if Fraction(repr(f)) == d else str(Decimal(d.numerator) / d.denominator)


def exact_text(x: sp.Expr) -> str:
    """``1/2000``, ``sqrt(2)/4``; a long rational that is a short decimal as ``1e+60``."""
    text = sp.sstr(x)
    if x.is_Rational and len(text) > 24 and in_float_range(x):
        f = to_float(x)
        if Fraction(repr(f)) == Fraction(x.p, x.q):
            return repr(f)
    return text
