"""Max and Min as sympy builds them, faster: the theorem modules build their statements'
maxima and minima with :func:`Max` and :func:`Min`, and the derivations
(:mod:`fedbounds.complexity`) rebuild them with :func:`minmax`. Only sympy is needed (no
numpy), so a theorem module imports this without the numeric stack."""

from __future__ import annotations

import math
import zlib

import sympy as sp
from sympy.core.operations import ShortCircuit
from sympy.core.parameters import global_parameters
from sympy.core.sorting import ordered

from .exprtree import as_basic

MEMO_LIMIT = 50_000  # entries of a memory before it is emptied


def remember(memo: dict, key: object, value: object) -> None:
    """``memo[key] = value``, the memory emptied first when it holds :data:`MEMO_LIMIT`."""
    if len(memo) > MEMO_LIMIT:
        memo.clear()
    memo[key] = value


# sympy's Max/Min constructor (MinMaxBase.__new__ of sympy 1.14) with its pairwise comparisons
# remembered: a specialization or a fixed value changes a few arguments of a Max, and sympy
# compares every pair again. Only for the sympy version it was written from (other versions:
# sympy's own constructor); tests/theory/test_complexity_speed.py compares the two.
_MINMAX_REIMPLEMENTED = sp.__version__.split(".")[:2] == ["1", "14"]
_CONNECTED: dict[tuple[sp.Basic, sp.Basic], object] = {}


def minmax(kind: type, args: list | tuple) -> sp.Basic:
    """``kind(*args)`` for ``kind`` Max or Min (evaluated, as sympy builds it)."""
    if not (_MINMAX_REIMPLEMENTED and global_parameters.evaluate):
        return kind(*args)
    try:
        unique = frozenset(kind._new_args_filter(as_basic(a) for a in args))
    except ShortCircuit:
        return kind.zero
    local_zeros: set = set()  # MinMaxBase._find_localzeros
    for value in kind._collapse_arguments(unique):
        is_new = True
        for zero in list(local_zeros):
            if id(value) == id(zero):
                is_new = False
                continue
            key = (value, zero)
            if key not in _CONNECTED:
                remember(_CONNECTED, key, False if ordering_flips(value, zero)
                         else kind._is_connected(value, zero))
            connected = _CONNECTED[key]
            if connected:
                is_new = False
                if connected is True or connected == kind:
                    local_zeros.remove(zero)
                    local_zeros.update([value])
        if is_new:
            local_zeros.update([value])
    found = frozenset(local_zeros)
    if not found:
        return kind.identity
    if len(found) == 1:
        return list(found).pop()
    out = sp.Expr.__new__(kind, *ordered(found))
    out._argset = found
    return out


# sample points of the symbols' domain for ordering_flips: point j gives a symbol a value from
# its name and j (a positive integer for an integer symbol, else a positive real over six
# decades), in 30-digit floats
_FLIP_POINTS = 6
_SAMPLED: dict[sp.Basic, tuple[float | None, ...]] = {}


def _sample(symbol: sp.Symbol, j: int) -> sp.Float:
    h = zlib.crc32(f"{symbol.name}:{j}".encode())
    if symbol.is_integer:
        return sp.Float(1 + h % 60, 30)
    return sp.Float(10 ** ((h % 10007) / 10007 * 6 - 3), 30)


def _sampled(expr: sp.Basic) -> tuple[float | None, ...]:
    """``expr`` at the sample points (None where it is not a finite real number)."""
    found = _SAMPLED.get(expr)
    if found is None:
        values: list[float | None] = []
        for j in range(_FLIP_POINTS):
            try:
                number = expr.xreplace({s: _sample(s, j) for s in expr.free_symbols})
                z = complex(number) if number.is_number else None
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                z = None
            values.append(z.real if z is not None and z.imag == 0 and math.isfinite(z.real)
                          else None)
        found = tuple(values)
        remember(_SAMPLED, expr, found)
    return found


def ordering_flips(x: sp.Basic, y: sp.Basic) -> bool:
    """Whether x − y takes both signs, by more than rounding, at points of the symbols'
    domain (every symbol finite and positive or nonnegative). Then neither x ≥ y nor x ≤ y
    holds for all values, so sympy (whose comparisons are decided from the assumptions, and
    soundly) decides none of them and ``MinMaxBase._is_connected`` answers False, after
    seconds of trying; this answers the same in a millisecond. Otherwise sympy is asked
    (tests/theory/test_complexity_speed.py compares every pair of a derivation)."""
    symbols = x.free_symbols | y.free_symbols
    if not symbols or not all(s.is_finite and s.is_nonnegative for s in symbols):
        return False
    above = below = False
    for a, b in zip(_sampled(x), _sampled(y), strict=True):
        if a is None or b is None:
            continue
        margin = 1e-9 * (abs(a) + abs(b))
        above |= a - b > margin
        below |= b - a > margin
    return above and below


def Max(*args: sp.Basic) -> sp.Basic:  # noqa: N802 (sympy's name)
    """``sympy.Max(*args)``, the same evaluated expression, built through :func:`minmax`
    (comparisons remembered, pairs that take both orders settled without sympy): for theorem
    modules, whose statements build their Max and Min when imported."""
    return minmax(sp.Max, args)


def Min(*args: sp.Basic) -> sp.Basic:  # noqa: N802 (sympy's name)
    """``sympy.Min(*args)`` (:func:`Max`)."""
    return minmax(sp.Min, args)
