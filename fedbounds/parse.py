"""Parsing of user-typed numbers and ``NAME=VALUE`` pairs never evaluated as Python.

Accepted: integers (``10``), decimals (``0.25``, ``.5``), scientific (``1e-3``, ``2.5E+4``),
fractions of those (``1/8``, ``3/2e3``). Everything is parsed to an exact :class:`Fraction`.
"""

from __future__ import annotations

import re
import sys
from fractions import Fraction

from .errors import BadInput

_NUMBER = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$")  # ASCII only
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_TINY = Fraction(sys.float_info.min)
_HUGE = Fraction(sys.float_info.max)


def parse_number(text: str, argument: str = "value") -> Fraction:
    """Parse an exact rational from ``text``; raise :class:`BadInput` naming ``argument``."""
    s = text.strip()
    parts = s.split("/")
    if len(parts) > 2 or not all(_NUMBER.match(p.strip()) for p in parts):
        raise BadInput(argument, f"malformed number {text!r}; allowed: integers, decimals, "
                       "1e-3 notation and fractions like 1/8")
    for part in parts:  # keep Fraction from building 10**huge before the range check
        m = _NUMBER.match(part.strip())
        if len(part.strip()) > 400 or (m.group(3) and abs(int(m.group(3)[1:])) > 10_000):
            shown = text if len(text) <= 40 else text[:40] + "..."
            raise BadInput(argument, f"number {shown!r} is too long or its exponent too large; "
                           f"allowed magnitudes: about 1e-308 to 1e308")
    num = Fraction(parts[0].strip())
    if len(parts) == 2:
        den = Fraction(parts[1].strip())
        if den == 0:
            raise BadInput(argument, f"division by zero in {text!r}")
        num /= den
    if num != 0 and not (_TINY <= abs(num) <= _HUGE):
        raise BadInput(argument, f"{text!r} is outside the range of a double (nonzero "
                       f"magnitudes about 2.2e-308 to 1.8e308 are allowed)")
    return num


def parse_assignments(items: list[str] | None, argument: str = "--set") -> dict[str, Fraction]:
    """Parse ``NAME=VALUE`` items (later ones override earlier ones)."""
    out: dict[str, Fraction] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not _NAME.match(name):
            raise BadInput(argument, f"expected NAME=VALUE, got {item!r}")
        out[name] = parse_number(value, f"{argument} {name}")
    return out


def number_text(value: Fraction | int | float) -> str:
    """A number exactly, for messages: ``p/q`` while the denominator is small (``3/2``,
    ``1/10``), else its exact decimal when it has one of at most 40 places
    (``1.00000000000000001``), else ``p/q``; never a rounded value."""
    v = Fraction(value)
    if v.denominator < 10**6:
        return str(v)
    den, twos, fives = v.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    places = max(twos, fives)
    if den == 1 and places <= 40:
        digits = str(abs(v.numerator) * 10**places // v.denominator).rjust(places + 1, "0")
        sign = "-" if v < 0 else ""
        return f"{sign}{digits[:-places]}.{digits[-places:]}"
    return f"{v.numerator}/{v.denominator}"
