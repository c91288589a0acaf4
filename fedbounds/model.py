"""The theorem model: theorems are data (DESIGN "How things should be built").

A paper module builds a :class:`Notation` (its symbols with domains), then a list of
:class:`Theorem` objects holding named conditions (sympy relationals with source lines), the
bound as named terms, derived quantities, claimed orders, corollary schedules and errata.
Everything that computes over a theorem lives in :mod:`fedbounds.engine` and
:mod:`fedbounds.complexity`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

__all__ = [
    "Domain",
    "POSITIVE",
    "NONNEGATIVE",
    "REAL",
    "UNIT",
    "PROBABILITY",
    "POSITIVE_INTEGER",
    "NONNEGATIVE_INTEGER",
    "SymbolSpec",
    "Notation",
    "Condition",
    "Relation",
    "Term",
    "Erratum",
    "Specialization",
    "Theorem",
]


@dataclass(frozen=True)
class Domain:
    """A set of admissible values: an interval of the reals, optionally integers only."""

    name: str
    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = True
    hi_open: bool = True
    integer: bool = False

    def contains(self, value: Fraction | float | int) -> bool:
        """Whether the exact value (a Fraction as typed, a float's own binary value) lies in
        the domain: ``1.00000000000000001`` is outside ``(0, 1]`` although its float is 1."""
        try:
            v = Fraction(value)
        except (ValueError, OverflowError, TypeError):  # nan, ±inf, not a number
            return False
        if self.integer and v.denominator != 1:
            return False
        if not math.isinf(self.lo) and (v < Fraction(self.lo) or
                                        (self.lo_open and v == Fraction(self.lo))):
            return False
        return math.isinf(self.hi) or not (v > Fraction(self.hi) or
                                           (self.hi_open and v == Fraction(self.hi)))

    def describe(self) -> str:
        """Human form, e.g. ``(0, 1]`` or ``integer >= 1``."""
        if self.integer:
            return f"integer >= {int(self.lo)}" if math.isinf(self.hi) else (
                f"integer in [{int(self.lo)}, {int(self.hi)}]")
        lo = "-inf" if math.isinf(self.lo) else _fmt(self.lo)
        hi = "inf" if math.isinf(self.hi) else _fmt(self.hi)
        return f"{'(' if self.lo_open else '['}{lo}, {hi}{')' if self.hi_open else ']'}"

    def sympy_assumptions(self) -> dict[str, bool]:
        a: dict[str, bool] = {"real": True}
        if self.integer:
            a["integer"] = True
        if self.lo > 0 or (self.lo == 0 and self.lo_open):
            a["positive"] = True
        elif self.lo == 0:
            a["nonnegative"] = True
        return a


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


POSITIVE = Domain("positive", 0.0)
NONNEGATIVE = Domain("nonnegative", 0.0, lo_open=False)
REAL = Domain("real")
UNIT = Domain("unit", 0.0, 1.0, lo_open=True, hi_open=False)  # (0, 1]
PROBABILITY = UNIT
OPEN_UNIT = Domain("open unit", 0.0, 1.0)  # (0, 1)
POSITIVE_INTEGER = Domain("positive integer", 1.0, lo_open=False, integer=True)
NONNEGATIVE_INTEGER = Domain("nonnegative integer", 0.0, lo_open=False, integer=True)


@dataclass(frozen=True)
class SymbolSpec:
    """A symbol of a paper's notation: ASCII name (DESIGN symbol names), domain, meaning."""

    name: str
    domain: Domain
    description: str
    latex: str = ""
    source: str = ""

    @property
    def symbol(self) -> sp.Symbol:
        return sp.Symbol(self.name, **self.domain.sympy_assumptions())


class Notation:
    """A paper's symbol table. ``add`` returns the sympy symbol to build expressions with."""

    def __init__(self, paper: str) -> None:
        self.paper = paper
        self._specs: dict[str, SymbolSpec] = {}

    def add(self, name: str, domain: Domain, description: str, latex: str = "",
            source: str = "") -> sp.Symbol:
        if name in self._specs:
            raise ValueError(f"symbol {name!r} declared twice in {self.paper}")
        spec = SymbolSpec(name, domain, description, latex or name, source)
        self._specs[name] = spec
        return spec.symbol

    def spec(self, name: str) -> SymbolSpec:
        return self._specs[name]

    def __contains__(self, name: str) -> bool:
        return name in self._specs

    def names(self) -> list[str]:
        return list(self._specs)


@dataclass(frozen=True)
class Condition:
    """A named hypothesis on the parameters, e.g. gamma <= 1/mu (paper line in ``source``)."""

    name: str
    rel: sp.Rel
    source: str
    note: str = ""


@dataclass(frozen=True)
class Relation:
    """A relation every instance of a theorem's assumptions satisfies (μ ≤ L_f for an
    L_f-smooth, μ-PL function; m ≤ M for m clients sampled among M): values that violate it
    describe no instance, so ``check``/``bound``/``max-step`` refuse them (``reason`` says why,
    ``source`` where it follows from)."""

    rel: sp.Rel
    reason: str
    source: str = ""


@dataclass(frozen=True)
class Term:
    """A named summand of a bound (or of a derived quantity) with its source line."""

    name: str
    expr: sp.Expr
    source: str
    note: str = ""


@dataclass(frozen=True)
class Erratum:
    """A documented error of the printed statement: printed vs corrected, with source line."""

    id: str
    source: str
    printed: str
    corrected: str
    description: str


@dataclass(frozen=True)
class Specialization:
    """A named substitution (e.g. min-max with ell = kappa*L) and the orders claimed under it."""

    name: str
    subs: dict[sp.Symbol, sp.Expr]
    claimed: dict[str, sp.Expr]
    source: str
    note: str = ""


@dataclass
class Theorem:
    """One statement of a paper, as data. ``id`` follows DESIGN (``paper.kindN[.variant]``)."""

    id: str
    paper: str
    title: str
    source: str
    statement: str
    notation: Notation
    assumptions: list[str] = field(default_factory=list)
    derived: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)
    bound_lhs: str = ""
    bound_sense: str = "<="  # "<=": the quantity is at most the bound; ">=": a lower bound
    bound: list[Term] = field(default_factory=list)
    schedule: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    schedule_source: str = ""
    costs: dict[str, sp.Expr] = field(default_factory=dict)
    claimed: dict[str, sp.Expr] = field(default_factory=dict)
    claimed_source: str = ""
    specializations: list[Specialization] = field(default_factory=list)
    errata: list[Erratum] = field(default_factory=list)
    corrected_of: str | None = None
    horizon: sp.Symbol | None = None  # T, the number of iterations
    accuracy: sp.Symbol | None = None  # epsilon
    # what the bound must reach for accuracy ε (default ε; ε² for E‖∇Φ‖² ≤ ε² criteria)
    accuracy_target: sp.Expr | None = None
    regime: list[sp.Rel] = field(default_factory=list)  # relations assumed by order comparisons
    # relations every admissible instance satisfies (checked on user values, unlike ``regime``)
    relations: list[Relation] = field(default_factory=list)
    # inputs the statement only asks to exist ("some M > B/ρ"): name -> the statement's words;
    # max-step may leave them out and choose the best value
    existential: dict[str, str] = field(default_factory=dict)
    fixed_in_orders: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)  # e.g. V_0 -> 1
    algorithms: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for c in self.conditions:
            if not isinstance(c.rel, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
                raise TypeError(
                    f"{self.id}: condition {c.name!r} is {c.rel!r}, not a relation <, <=, >, >=; "
                    "sympy evaluated it at construction (it holds by the symbols' assumptions): "
                    "build it with evaluate=False, e.g. sp.Gt(x, 0, evaluate=False)")
        names = [c.name for c in self.conditions]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: duplicate condition names {names}")
        for sym in self._symbols_used():
            if sym.name not in self.notation:
                raise ValueError(f"{self.id}: symbol {sym.name!r} is not in the notation")
        for r in self.relations:
            if not isinstance(r.rel, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
                raise TypeError(f"{self.id}: relation {r.rel!r} is not <, <=, >, >= (build it "
                                "with evaluate=False if sympy decides it from assumptions)")
            unknown = {s.name for s in r.rel.free_symbols} - set(self.notation.names())
            if unknown:
                raise ValueError(f"{self.id}: relation {r.rel} uses {sorted(unknown)}, not in "
                                 "the notation")
        for name in self.existential:
            if name not in self.notation or name in {s.name for s in self.derived}:
                raise ValueError(f"{self.id}: existential symbol {name!r} is not an input")

    # -- symbols ---------------------------------------------------------------------------
    def expand(self, expr: sp.Expr | sp.Rel) -> sp.Expr | sp.Rel:
        """Substitute derived quantities (in declaration order, later may use earlier)."""
        for sym, value in reversed(list(self.derived.items())):
            expr = expr.xreplace({sym: value})
        return expr

    def _expressions(self) -> list[sp.Basic]:
        return ([c.rel.lhs for c in self.conditions] + [c.rel.rhs for c in self.conditions]
                + [t.expr for t in self.bound])

    def _symbols_used(self) -> set[sp.Symbol]:
        """Every symbol of the conditions and the bound, derived quantities replaced by the
        symbols of their values (as :meth:`expand` replaces them) without rebuilding any
        expression: :meth:`free_symbols` and the symbols that cancel in it, for checking the
        notation at construction (rebuilding took about 10 ms per theorem)."""
        closure: dict[sp.Symbol, set[sp.Symbol]] = {}
        for sym, value in self.derived.items():  # a value uses earlier derived quantities
            closure[sym] = set().union(*(closure.get(s, {s}) for s in value.free_symbols))
        return set().union(*(closure.get(s, {s}) for e in self._expressions()
                             for s in e.free_symbols))

    def free_symbols(self) -> set[sp.Symbol]:
        out: set[sp.Symbol] = set()
        for e in self._expressions():
            out |= self.expand(e).free_symbols
        return out

    def inputs(self) -> list[str]:
        """Names a user must give to check conditions and evaluate the bound (sorted)."""
        return sorted(s.name for s in self.free_symbols())

    def condition_inputs(self) -> list[str]:
        out: set[str] = set()
        for c in self.conditions:
            out |= {s.name for side in (c.rel.lhs, c.rel.rhs)
                    for s in self.expand(side).free_symbols}
        return sorted(out)

    def bound_value_expr(self) -> sp.Expr:
        return sp.Add(*[t.expr for t in self.bound])
