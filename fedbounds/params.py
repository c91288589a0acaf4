"""Declared parameters: one validation layer at the input boundary (scikit-learn's declared
constraints).

Every algorithm, problem family and counterexample declares each parameter it accepts as a
:class:`Param`: its kind (``int``, ``float`` or ``str`` with choices), its domain (low/high
limits, each open or closed) and its meaning. :meth:`Param.check` validates a typed value once,
before anything runs: an integer given 1.5 is refused (never truncated), a value outside the
domain or not finite is refused naming the parameter, and nothing is replaced by a default.
The theory layer owns it so that ``problems`` and ``verify`` share one definition.

The work one call may request is capped (:data:`DEFAULT_MAX_WORK`, raised with ``--max-work``):
:func:`within_cap` is the one refusal, naming the argument, the amount, the cap and the flag.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .errors import BadInput
from .parse import number_text

KINDS = {int: "integer", float: "real", str: "choice"}

# The cap on the work of one run (≈ numbers touched; numpy touches about 1e9 a second, so the
# default is a run of a minute or two) and the share of it that may be held in memory at once.
DEFAULT_MAX_WORK = 10**11
MEMORY_SHARE = 2000  # numbers held at once ≤ max_work / MEMORY_SHARE (5e7 numbers, 400 MB)
MAX_WORK_FLAG = "--max-work"


def show(value: Any) -> str:
    """A user's value as typed: 1/3 for a fraction, '...' for a string."""
    if isinstance(value, Fraction):
        return number_text(value)
    return repr(value) if isinstance(value, str) else str(value)


def _bound(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e16 else f"{value:g}"


@dataclass(frozen=True)
class Param:
    """A declared parameter: default (``None``: computed from the problem, e.g. a theorem's
    schedule, or "none given"), meaning, kind (``int`` values must be integers, never
    truncated; ``str`` values one of ``choices``) and domain ``low``/``high`` (each inclusive
    unless ``low_open``/``high_open``)."""

    default: float | int | str | None
    doc: str
    kind: type = float
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    low_open: bool = False  # True: the value must be strictly above ``low`` (e.g. η > 0)
    high_open: bool = False  # True: the value must be strictly below ``high`` (e.g. ρ < 1)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise TypeError(f"Param kind must be int, float or str, not {self.kind!r}")
        if (self.kind is str) != bool(self.choices):
            raise TypeError("a str Param needs choices, and only a str Param has them")
        if not self.doc.strip():
            raise TypeError("a Param needs a meaning (doc)")

    def domain(self) -> str:
        """The domain in words: 'integer in [1, 10000]', 'real in (0, 1]', 'one of a, b'."""
        if self.kind is str:
            return "one of " + ", ".join(self.choices)
        if self.low is None and self.high is None:
            return f"finite {KINDS[self.kind]}"
        lo = "-inf" if self.low is None else _bound(self.low)
        hi = "inf" if self.high is None else _bound(self.high)
        left = "(" if self.low is None or self.low_open else "["
        right = ")" if self.high is None or self.high_open else "]"
        return f"{KINDS[self.kind]} in {left}{lo}, {hi}{right}"

    def describe(self) -> dict[str, Any]:
        """What ``fedbounds list --json`` shows of the parameter."""
        return {"default": self.default, "kind": KINDS[self.kind], "domain": self.domain(),
                "doc": self.doc}

    def check(self, name: str, value: Any, argument: str | None = None) -> Any:
        """The value if it is allowed (an ``int`` for an integer parameter, a ``float`` for a
        real one), else :class:`BadInput` naming ``argument`` (default ``--set NAME``)."""
        arg = argument or f"--set {name}"
        if self.kind is str:
            if not isinstance(value, str) or value not in self.choices:
                raise BadInput(arg, f"{name} takes one of {', '.join(self.choices)}; "
                               f"got {show(value)}")
            return value
        if isinstance(value, bool) or isinstance(value, str) and not value.strip():
            raise BadInput(arg, f"{name} takes a number ({self.domain()}); got {show(value)}")
        try:
            exact = value if isinstance(value, (int, Fraction)) else float(value)
            x = float(exact)
        except OverflowError:
            raise BadInput(arg, f"{name} is too large ({self.domain()}); got "
                           f"{show(value)}") from None
        except (TypeError, ValueError):
            raise BadInput(arg, f"{name} takes a number ({self.domain()}); got "
                           f"{show(value)}") from None
        if not math.isfinite(x):
            raise BadInput(arg, f"{name} must be finite ({self.domain()}); got {show(value)}")
        if self.kind is int:
            if isinstance(exact, Fraction) and exact.denominator != 1 or \
                    isinstance(exact, float) and not exact.is_integer():
                raise BadInput(arg, f"{name} takes an integer ({self.domain()}); got "
                               f"{show(value)}")
            x = int(exact)
        # the bounds are compared with the exact value typed, not its float (1 + 1e-17 > 1)
        v = Fraction(exact)
        if self.low is not None and (v < Fraction(self.low) or
                                     (self.low_open and v == Fraction(self.low))):
            op = ">" if self.low_open else ">="
            raise BadInput(arg, f"{name} must be {op} {_bound(self.low)} ({self.domain()}); "
                           f"got {show(value)}")
        if self.high is not None and (v > Fraction(self.high) or
                                      (self.high_open and v == Fraction(self.high))):
            op = "<" if self.high_open else "<="
            raise BadInput(arg, f"{name} must be {op} {_bound(self.high)} ({self.domain()}); "
                           f"got {show(value)}")
        return x


def check_values(params: Mapping[str, Param], given: Mapping[str, Any], owner: str,
                 argument: str = "--set") -> dict[str, Any]:
    """Every declared parameter: the validated given value, else its declared default (a
    given value is never replaced); an unknown name is refused listing the allowed ones."""
    for name in given:
        if name not in params:
            raise BadInput(f"{argument} {name}", f"unknown parameter {name!r} for {owner}; "
                           f"allowed: {', '.join(sorted(params))}")
    return {k: (p.check(k, given[k], f"{argument} {k}") if k in given else p.default)
            for k, p in params.items()}


def memory_cap(max_work: float) -> float:
    """Numbers one call may hold at once under the work cap ``max_work``."""
    return max_work / MEMORY_SHARE


def within_cap(argument: str, what: str, amount: float, cap: float, *,
               flag: str = MAX_WORK_FLAG, needed: float | None = None) -> None:
    """Refuse (exit 2 naming ``argument``) when ``amount`` of ``what`` exceeds ``cap``; the
    message says how to raise the cap with ``flag`` (to ``needed``, default ``amount``)."""
    if amount <= cap:
        return
    lower = "use a smaller instance" if argument in ("--problem", "--problem-file") else \
        f"lower {argument.removeprefix('--set ')}"
    raise BadInput(argument, f"{what} is {amount:.3g}, above the cap {cap:.3g}; {lower} or "
                   f"raise the cap with {flag} {needed if needed is not None else amount:.3g}")
