"""Generic computations over :class:`~fedbounds.model.Theorem` data.

Every expression is compiled once per theorem with :func:`sympy.lambdify` (numpy backend);
user values never pass through sympy's string parser. Values are computed in float64 first (the fast
path) and again exactly (:mod:`fedbounds.exact`: rationals substituted into the sympy
expression, irrational results decided by certified ``evalf``) wherever float64 cannot decide:
a floating-point exception (overflow, underflow, division by zero, invalid operation), an input
outside float64's normal range, a non-finite result or a borderline margin (|margin| within
1e-9 of the scale). So ``gamma = 1/mu`` satisfies ``gamma <= 1/mu`` exactly, and
``M = 4/q > 2/q`` holds when ``q`` is subnormal and ``4/q`` overflows.

Numbers float64 cannot hold (|x| > 1.8e308, nonzero |x| < 2.2e-308, infinities) keep their
float fields (the nearest float) plus a scientific string in an ``exact`` map; in JSON the number
saturates at +-1.7976931348623157e308, null only if undefined (``0/0``) or infinite (``c/0``).
"""

from __future__ import annotations

import difflib
import math
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import sympy as sp

from . import exact
from .errors import BadInput
from .model import Condition, Domain, Relation, Theorem
from .parse import number_text
from .pretty import pretty

Values = dict[str, Fraction]
Point = Mapping[str, Fraction | sp.Expr]
_BORDERLINE = 1e-9  # |margin| <= 1e-9 * max(|lhs|, |rhs|): decided exactly
_FLOAT_ERRORS = (FloatingPointError, ZeroDivisionError, OverflowError, ValueError, TypeError)
_OPS = {sp.Le: "<=", sp.Lt: "<", sp.Ge: ">=", sp.Gt: ">"}


# ---------------------------------------------------------------------------------------------
# compilation
# ---------------------------------------------------------------------------------------------
@dataclass
class _CompiledCondition:
    cond: Condition
    expanded: sp.Rel
    args: list[str]
    lhs: object
    rhs: object
    sign: int  # +1: margin = rhs - lhs (<=, <); -1: margin = lhs - rhs (>=, >)
    strict: bool
    relation: str = ""


def _lambdify(args: list[sp.Symbol], expr: sp.Expr):
    return sp.lambdify(args, expr, modules="numpy")


class Compiled:
    """A theorem with every condition, bound term and derived quantity lambdified once."""

    def __init__(self, thm: Theorem) -> None:
        self.thm = thm
        self.symbols = sorted(thm.free_symbols(), key=lambda s: s.name)
        self.names = [s.name for s in self.symbols]  # thm.inputs(), expanded once
        self.conditions: list[_CompiledCondition] = []
        for c in thm.conditions:
            if not isinstance(c.rel, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
                raise TypeError(f"{thm.id}: condition {c.name!r} must be <, <=, >, >= "
                                f"(got {c.rel})")
            # expand both sides separately: a condition that holds identically once derived
            # quantities are substituted (e.g. M = 4/q > 2/q) stays a relation to evaluate
            rel = type(c.rel)(thm.expand(c.rel.lhs), thm.expand(c.rel.rhs), evaluate=False)
            self.conditions.append(_CompiledCondition(
                c, rel, sorted(s.name for s in rel.free_symbols),
                _lambdify(self.symbols, rel.lhs), _lambdify(self.symbols, rel.rhs),
                1 if isinstance(rel, (sp.Le, sp.Lt)) else -1, isinstance(rel, (sp.Lt, sp.Gt)),
                f"{sp.sstr(c.rel.lhs)} {_OPS[type(c.rel)]} {sp.sstr(c.rel.rhs)}"))
        # (term, function) and (name, function) pairs; the expanded expressions alongside
        self.term_exprs = [thm.expand(t.expr) for t in thm.bound]
        self.derived_exprs = [thm.expand(v) for v in thm.derived.values()]
        self.terms = [(t, _lambdify(self.symbols, e))
                      for t, e in zip(thm.bound, self.term_exprs, strict=True)]
        self.derived = [(s.name, _lambdify(self.symbols, e))
                        for s, e in zip(thm.derived, self.derived_exprs, strict=True)]
        self.condition_inputs = sorted({n for cc in self.conditions for n in cc.args})


_CACHE: dict[int, Compiled] = {}


def compiled(thm: Theorem) -> Compiled:
    """The compiled form of ``thm`` (cached: compiled once per theorem object)."""
    key = id(thm)
    if key not in _CACHE or _CACHE[key].thm is not thm:
        _CACHE[key] = Compiled(thm)
    return _CACHE[key]


def _float_args(c: Compiled, point: Point) -> tuple[list[np.float64], set[str]]:
    """float64 arguments for ``point`` and the names float64 does not hold exactly (values
    whose float is not the value typed, e.g. 2⁵³ + 1 or 0.1; nonzero values outside the normal
    range; irrational values): expressions of those go exact."""
    args, inexact = [], set()
    for n in c.names:
        v = point[n]
        f = math.nan if isinstance(v, sp.Basic) else exact.to_float(v)
        if math.isnan(f) or (v != 0 and not exact.MIN_NORMAL <= abs(f) <= exact.MAX_FLOAT) or (
                math.isfinite(f) and Fraction(f) != v):
            inexact.add(n)
        args.append(np.float64(f))
    return args, inexact


def _float(f: Callable, args: list) -> float | None:
    """The float64 value of a compiled expression; None where float64 cannot be trusted (any
    floating-point exception, a complex or non-finite result)."""
    try:
        with np.errstate(all="raise"):
            v = complex(f(*args))
    except _FLOAT_ERRORS:
        return None
    return v.real if v.imag == 0 and math.isfinite(v.real) else None


# ---------------------------------------------------------------------------------------------
# validation (the one boundary layer)
# ---------------------------------------------------------------------------------------------
def validate(thm: Theorem, values: Values, required: list[str], optional: list[str] = (),
             argument: str = "--set") -> Values:
    """Check names and domains of ``values``; every name in ``required`` must be present."""
    allowed = set(required) | set(optional) | set(compiled(thm).names)
    for name in values:
        if name not in allowed:
            close = difflib.get_close_matches(name, sorted(allowed), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            derived = {s.name for s in thm.derived}
            if name in derived:
                expr = next(v for s, v in thm.derived.items() if s.name == name)
                raise BadInput(f"{argument} {name}", f"{name!r} is derived by {thm.id} "
                               f"({name} = {sp.sstr(expr)}), not an input")
            raise BadInput(f"{argument} {name}", f"unknown symbol {name!r} for {thm.id}{hint}; "
                           f"allowed: {', '.join(sorted(allowed))}")
    missing = [n for n in required if n not in values]
    if missing:
        desc = ", ".join(f"{n} ({thm.notation.spec(n).description}; "
                         f"{thm.notation.spec(n).domain.describe()})" for n in missing)
        chosen = [n for n in missing if n in thm.existential]
        hint = (f"; {', '.join(chosen)}: the statement only asks for {thm.existential[chosen[0]]}"
                f" — give a value, or leave it out of max-step, which chooses the best one"
                if chosen else "")
        raise BadInput(argument, f"missing value for {desc}{hint}")
    for name, v in values.items():
        dom = thm.notation.spec(name).domain
        if not dom.contains(v):
            raise BadInput(f"{argument} {name}", f"{name}={_show(v)} is outside its domain "
                           f"{dom.describe()} ({thm.notation.spec(name).description})")
    return values


def _show(v: Fraction) -> str:
    v = Fraction(v)
    text = number_text(v)
    return text if len(text) <= 60 else exact.scientific(v)


# ---------------------------------------------------------------------------------------------
# relations every instance satisfies (mu <= L_f, m <= M, ...)
# ---------------------------------------------------------------------------------------------
def relation_text(rel: sp.Rel) -> str:
    """A relation as people read it: ``μ ≤ L_f``."""
    op = {sp.Le: "≤", sp.Lt: "<", sp.Ge: "≥", sp.Gt: ">"}[type(rel)]
    return f"{pretty(rel.lhs)} {op} {pretty(rel.rhs)}"


@dataclass
class RelationResult:
    """A declared relation decided exactly at the given values (only relations whose symbols
    are all given are decided)."""

    relation: Relation
    text: str
    names: list[str]
    holds: bool

    def as_json(self) -> dict:
        return {"relation": self.text, "holds": self.holds, "reason": self.relation.reason,
                "source": self.relation.source}


def _relation_names(thm: Theorem, relation: Relation) -> list[str]:
    return sorted(s.name for s in thm.expand(relation.rel).free_symbols)


def relations(thm: Theorem, values: Mapping[str, Fraction]) -> list[RelationResult]:
    """The theorem's relations whose symbols all have values, each decided exactly."""
    out = []
    for r in thm.relations:
        names = _relation_names(thm, r)
        if not names or any(n not in values for n in names):
            continue
        lhs, rhs = thm.expand(r.rel.lhs), thm.expand(r.rel.rhs)
        sign_ = 1 if isinstance(r.rel, (sp.Le, sp.Lt)) else -1
        _, holds, _ = exact.decide(lhs, rhs, sign_, isinstance(r.rel, (sp.Lt, sp.Gt)),
                                   {n: values[n] for n in names})
        out.append(RelationResult(r, relation_text(r.rel), names, holds))
    return out


def check_relations(thm: Theorem, values: Mapping[str, Fraction], vary: str | None = None,
                    argument: str = "--set") -> list[RelationResult]:
    """:class:`BadInput` naming the first relation the values violate, its values and why it
    holds for every instance (relations with ``vary`` are left to :func:`with_relations`);
    returns the relations decided."""
    decided = [r for r in relations(thm, values) if vary not in r.names]
    for r in decided:
        if not r.holds:
            given = ", ".join(f"{n}={_show(values[n])}" for n in r.names)
            raise BadInput(argument, f"{given} violate the relation {r.text} of {thm.id}: "
                           f"{r.relation.reason} ({r.relation.source}); no instance of the "
                           f"theorem's assumptions has these values (--ignore-relations "
                           f"evaluates them anyway)")
    return decided


_WITH_RELATIONS: dict[tuple[int, str, tuple[int, ...]], tuple[Theorem, Theorem]] = {}


def with_relations(thm: Theorem, vary: str, given: Iterable[str]) -> Theorem:
    """``thm`` with its relations between ``vary`` and ``given`` symbols added as conditions
    (named ``relation: μ ≤ L_f``): max-step keeps ``vary`` where an instance can exist."""
    given = set(given)
    chosen = tuple(k for k, r in enumerate(thm.relations)
                   if vary in (names := _relation_names(thm, r))
                   and all(n == vary or n in given for n in names))
    key = (id(thm), vary, chosen)
    if key in _WITH_RELATIONS and _WITH_RELATIONS[key][0] is thm:
        return _WITH_RELATIONS[key][1]
    extra = [Condition(f"relation: {relation_text(r.rel)}", r.rel, r.source, r.reason)
             for r in (thm.relations[k] for k in chosen)]
    out = thm if not extra else replace(thm, conditions=[*thm.conditions, *extra])
    _WITH_RELATIONS[key] = (thm, out)
    return out


# ---------------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------------
@dataclass
class ConditionResult:
    """One condition at one point: ``lhs``, ``rhs``, ``margin`` as the nearest floats (inf
    beyond float64's range, NaN where undefined); ``exact`` maps those float64 cannot hold to
    scientific strings (``{"lhs": "5.2173913043478261e+309"}``); ``undecided``: the margin's
    sign could not be certified (``holds`` is then False, not proven). JSON: ``name, relation,
    lhs, rhs, margin, holds, source``, plus ``exact`` and ``undecided`` where they apply."""

    name: str
    relation: str
    lhs: float
    rhs: float
    margin: float
    holds: bool
    source: str
    exact: dict[str, str] = field(default_factory=dict)
    undecided: bool = False

    def as_json(self) -> dict:
        num = {k: exact.json_number(getattr(self, k), self.exact.get(k))
               for k in ("lhs", "rhs", "margin")}
        out = {"name": self.name, "relation": self.relation, **num, "holds": self.holds,
               "source": self.source}
        return {**out, **({"exact": dict(self.exact)} if self.exact else {}),
                **({"undecided": True} if self.undecided else {})}


def _condition_result(cc: _CompiledCondition, args: list, inexact: set[str],
                      point: Point) -> ConditionResult:
    """Float64 first; exactly when float64 cannot decide (see the module docstring)."""
    if not inexact.intersection(cc.args):
        lhs, rhs = _float(cc.lhs, args), _float(cc.rhs, args)
        if lhs is not None and rhs is not None:
            margin = cc.sign * (rhs - lhs) + 0.0
            if math.isfinite(margin) and abs(margin) > _BORDERLINE * max(abs(lhs), abs(rhs)):
                return ConditionResult(cc.cond.name, cc.relation, lhs, rhs, margin, margin > 0,
                                       cc.cond.source)
    values, holds, undecided = exact.decide(*cc.expanded.args, cc.sign, cc.strict, point)
    return ConditionResult(cc.cond.name, cc.relation, *map(exact.to_float, values.values()),
                           holds, cc.cond.source, exact.beyond_float(values), undecided)


def check(thm: Theorem, values: Values) -> tuple[bool, list[ConditionResult]]:
    """Evaluate every condition of ``thm`` at ``values`` (validated: names, domains)."""
    c = compiled(thm)
    validate(thm, values, c.condition_inputs)
    full = {n: values.get(n, Fraction(1)) for n in c.names}  # unused names (e.g. T) do not matter
    results = _evaluate_conditions(c, full)
    return all(r.holds for r in results), results


def _evaluate_conditions(c: Compiled, point: Point) -> list[ConditionResult]:
    # numpy scalars with floating-point exceptions raised: c/0, overflow, underflow and NaN go
    # to the exact path, where c/0 is +inf (e.g. με/(8σ_*²) with σ_* = 0 is no cap) and 0/0 is
    # undefined (violated)
    args, inexact = _float_args(c, point)
    return [_condition_result(cc, args, inexact, point) for cc in c.conditions]


# ---------------------------------------------------------------------------------------------
# bound
# ---------------------------------------------------------------------------------------------
@dataclass
class BoundResult:
    """The bound's value, its named terms and the derived quantities (nearest floats); ``exact``
    (``{"value": str, "terms": {name: str}, "derived": {name: str}}``, entries only where
    needed) holds the scientific form of every number float64 cannot hold."""

    value: float
    terms: dict[str, float]
    derived: dict[str, float]
    feasible: bool
    violated: list[str] = field(default_factory=list)
    exact: dict = field(default_factory=dict)

    def as_json(self, thm: Theorem) -> dict:
        """``theorem, value, terms, derived, lhs, conditions_hold, violated`` (+ ``exact``)."""
        ex = self.exact
        out = {"theorem": thm.id, "value": exact.json_number(self.value, ex.get("value")),
               **{key: {k: exact.json_number(v, ex.get(key, {}).get(k)) for k, v in table.items()}
                  for key, table in (("terms", self.terms), ("derived", self.derived))},
               "lhs": thm.bound_lhs, "conditions_hold": self.feasible, "violated": self.violated}
        return {**out, "exact": ex} if ex else out


def _value(expr: sp.Expr, f: Callable, args: list, inexact: set[str], point: Point
           ) -> tuple[float, sp.Expr | None]:
    """Float64 value of ``expr``, with its exact value when float64 could not be trusted."""
    if not inexact.intersection(s.name for s in expr.free_symbols):
        v = _float(f, args)
        if v is not None:
            return v, None
    try:
        x = exact.evaluate(expr, point)
    except (exact.Undecidable, KeyError):  # KeyError: a derived quantity's non-input symbol
        x = sp.nan
    return exact.to_float(x), x


def bound(thm: Theorem, values: Values) -> BoundResult:
    """Value of the bound and its named terms; conditions are checked and reported alongside."""
    if not thm.bound:
        raise BadInput("ID", f"{thm.id} states no computable bound (it states orders only); "
                       "use `fedbounds complexity`")
    c = compiled(thm)
    validate(thm, values, c.names)
    point = {n: values[n] for n in c.names}
    args, inexact = _float_args(c, point)
    terms = {t.name: _value(e, f, args, inexact, point)
             for (t, f), e in zip(c.terms, c.term_exprs, strict=True)}
    derived = {n: _value(e, f, args, inexact, point)
               for (n, f), e in zip(c.derived, c.derived_exprs, strict=True)}
    floats = [v for v, _ in terms.values()]
    # fsum raises on inf + (−inf): non-finite terms go to the exact sum below
    total = math.fsum(floats) if all(map(math.isfinite, floats)) else math.nan
    ex: dict = {}
    if not math.isfinite(total) or any(x is not None for _, x in terms.values()):
        exact_total = exact.total([exact.rational(Fraction(v)) if x is None else x
                                   for v, x in terms.values()])
        total = exact.to_float(exact_total)
        ex.update(exact.beyond_float({"value": exact_total}))
    for key, table in (("terms", terms), ("derived", derived)):
        strings = exact.beyond_float({k: x for k, (_, x) in table.items() if x is not None})
        ex.update({key: strings} if strings else {})
    ok, results = check(thm, {n: values[n] for n in c.condition_inputs})
    return BoundResult(total, {k: v for k, (v, _) in terms.items()},
                       {k: v for k, (v, _) in derived.items()}, ok,
                       [r.name for r in results if not r.holds], ex)


# ---------------------------------------------------------------------------------------------
# max-step: largest feasible value of one symbol
# ---------------------------------------------------------------------------------------------
_RECHECK = 48  # grid points float64 rejects on doubtful margins only, re-decided (at most)
_SPARSE = (41, 42, 44, 48, 56, 72, 104, 168, 232, 296)  # 10^±k, 1e308, 1e-323 join the grid


@dataclass
class MaxStepResult:
    """The largest value of ``vary`` that :func:`check` accepts, the others fixed.

    ``value`` passes :func:`check` as the binary float and as its shortest ``repr``; None if no
    value passes (``binding_all``: the failing conditions), if the feasible set is unbounded
    above (``unbounded``: proven symbolically) or reaches the largest double without proof
    (``unbounded_unproven``). ``exact``: the boundary (supremum of the last segment) as an
    exact expression (``"1/2000"``, ``"sqrt(2)/4"``, ``"0"``) when found; ``decimal``: the
    shortest decimal at least ``value`` that :func:`check` accepts (the table prints it:
    ``"0.0005"`` for 1/2000, whose nearest float lies above it); ``note``: anything unusual.
    ``intervals``: the whole feasible set, each piece ``{"lo": end, "hi": end}`` with an end
    ``{"value": float | None (None: infinite), "exact": str | None, "decimal": str | None,
    "closed": bool}``; ``chosen``: values max-step chose for symbols the statement only asks to
    exist (:func:`max_step_choosing`). JSON: the fields (``segments`` as ``feasible_set``) and
    ``theorem``."""

    vary: str
    value: float | None
    binding: str | None
    binding_all: list[str]
    attained: bool
    interval: bool
    segments: list[tuple[float, float]]
    unbounded: bool = False
    exact: str | None = None
    decimal: str | None = None
    unbounded_unproven: bool = False
    note: str = ""
    intervals: list[dict] = field(default_factory=list)
    chosen: dict[str, str] = field(default_factory=dict)

    def as_json(self, theorem: str) -> dict:
        out = {"theorem": theorem, **vars(self)}
        out["segments"] = [[a, b if math.isfinite(b) else None] for a, b in self.segments]
        return {"feasible_set" if k == "segments" else k: v for k, v in out.items()}


def _grid(lo: float, hi: float, lo_open: bool, hi_open: bool) -> np.ndarray:
    """Candidate points of a domain: log-spaced over 80 decades (1e-40..1e40), sparse beyond up
    to 1e308 and down to 1e-323 (10^±41, 10^±42, 10^±44, ...), both signs where allowed."""
    sparse = [10.0 ** k for k in _SPARSE]
    pos = np.concatenate([np.logspace(-40, 40, 8001), sparse, [1 / x for x in sparse],
                          [1e308, 1e-323]])
    pts = [pos[(pos > max(lo, 0)) & (pos < hi)]]
    if lo < 0:
        neg = -pos[::-1]
        pts.insert(0, neg[(neg > lo) & (neg < min(hi, 0))])
        if hi > 0:
            pts.insert(1, np.array([0.0]))
    for edge, is_open in ((lo, lo_open), (hi, hi_open)):
        if math.isfinite(edge) and not is_open:
            pts.append(np.array([edge]))
        elif math.isfinite(edge):
            nxt = np.nextafter(edge, hi if edge == lo else lo)
            pts.append(np.array([nxt]))
    g = np.unique(np.concatenate(pts))
    return g[(g >= lo) & (g <= hi)]


class _Feasibility:
    """Feasibility of one varied symbol with the others fixed, vectorized over the grid (float64
    only: a fast scan; :class:`_Probe` re-decides its doubtful points and its answer)."""

    def __init__(self, c: Compiled, vary: str, values: Values) -> None:
        self.c, self.idx = c, c.names.index(vary)
        self.base = [exact.to_float(values.get(n, Fraction(1))) for n in c.names]
        self.strict = np.array([cc.strict for cc in c.conditions])[:, None]

    def ok_doubtful(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Feasible points, and infeasible ones whose failing margins are all doubtful: non-finite,
        borderline, or with a side < 1e-290 or > 1e290 after a floating-point exception."""
        v = np.asarray(v, dtype=float)
        args = [np.full(v.shape, b) for b in self.base]
        args[self.idx] = v
        m = np.empty((len(self.c.conditions), v.size))
        doubt = np.empty(m.shape, dtype=bool)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for k, cc in enumerate(self.c.conditions):
                flags: list[str] = []
                with np.errstate(all="call", call=lambda kind, _flag, f=flags: f.append(kind)):
                    lhs = np.broadcast_to(np.asarray(cc.lhs(*args), dtype=float), v.shape)
                    rhs = np.broadcast_to(np.asarray(cc.rhs(*args), dtype=float), v.shape)
                with np.errstate(all="ignore"):
                    m[k] = cc.sign * (rhs - lhs)
                    scale = np.maximum(np.abs(lhs), np.abs(rhs))
                    doubt[k] = ~np.isfinite(m[k]) | (np.abs(m[k]) <= _BORDERLINE * scale)
                    if flags:
                        small = np.minimum(np.abs(lhs), np.abs(rhs))
                        doubt[k] |= (small < 1e-290) | (scale > 1e290)
        good = np.where(self.strict, m > 0, m >= 0) & ~np.isnan(m)
        ok = good.all(axis=0)
        return ok, ~ok & ~(~good & ~doubt).any(axis=0)

    def ok1(self, v: float) -> bool:
        """Float64 feasibility of one point (scalars: the bisection's fast predicate)."""
        args = [np.float64(b) for b in self.base]
        args[self.idx] = np.float64(v)
        with np.errstate(all="ignore"):
            return all(bool(m > 0 if cc.strict else m >= 0) for cc in self.c.conditions
                       for m in [cc.sign * (cc.rhs(*args) - cc.lhs(*args))])


class _Probe:
    """Single points decided exactly as :func:`check` decides them (cached)."""

    def __init__(self, c: Compiled, vary: str, values: Values) -> None:
        self.c, self.vary = c, vary
        self.base = {n: values.get(n, Fraction(1)) for n in c.names}
        self.symbol = c.symbols[c.names.index(vary)]
        self._cache: dict[object, list[ConditionResult]] = {}

    def results(self, x: float | Fraction | sp.Expr) -> list[ConditionResult]:
        x = Fraction(x.p, x.q) if isinstance(x, sp.Rational) else (
            x if isinstance(x, (Fraction, sp.Basic)) else Fraction(x))
        if x not in self._cache:
            self._cache[x] = _evaluate_conditions(self.c, {**self.base, self.vary: x})
        return self._cache[x]

    def ok(self, x: float | Fraction | sp.Expr) -> bool:
        return all(r.holds for r in self.results(x))

    def both(self, v: float) -> bool:
        """``v`` passes as the binary float and as its shortest decimal ``repr``."""
        return self.ok(v) and self.ok(Fraction(repr(v)))

    def failing(self, x: float | Fraction | sp.Expr) -> list[str]:
        return [r.name for r in self.results(x) if not r.holds]

    def margins(self, failing_at: float | Fraction | None = None) -> list[sp.Expr] | None:
        """The margins of the conditions with the varied symbol (all, or those failing at a
        point) as univariate expressions, the others exact; None if one cannot be formed."""
        results = self.results(1 if failing_at is None else failing_at)
        out = [exact.univariate(*cc.expanded.args, cc.sign, self.symbol, self.base)
               for cc, r in zip(self.c.conditions, results, strict=True)
               if self.vary in cc.args and (failing_at is None or not r.holds)]
        return None if any(m is None for m in out) else out


def _segments(feas: _Feasibility, probe: _Probe, grid: np.ndarray, dom: Domain) -> list[list]:
    """``[lo, hi, i, j]`` per feasible run ``grid[i..j]`` of the scan, ends bisected; points
    float64 rejects on doubtful margins only are re-decided by ``probe`` (at most 48)."""
    ok, doubtful = feas.ok_doubtful(grid)
    idx = np.flatnonzero(doubtful)
    if idx.size > _RECHECK:
        idx = idx[np.unique(np.linspace(0, idx.size - 1, _RECHECK).round().astype(int))]
    redecided = np.zeros(grid.size, dtype=bool)
    redecided[idx] = True
    for k in idx:
        ok[k] = probe.ok(float(grid[k]))

    def pred(k: int) -> Callable[[float], bool]:
        return probe.ok if redecided[k] or redecided[k + 1] else feas.ok1

    segments, i, n = [], 0, grid.size
    while i < n:
        if not ok[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and ok[j + 1]:
            j += 1
        lo = (dom.lo if math.isfinite(dom.lo) else grid[0]) if i == 0 else \
            exact.bisect(pred(i - 1), grid[i], grid[i - 1])[0]
        hi = grid[j] if j == n - 1 else exact.bisect(pred(j), grid[j], grid[j + 1])[0]
        segments.append([float(lo), float(hi), i, j])
        i = j + 1
    return segments


@dataclass
class _Top:
    """The top: "value" (``a`` passes, the adjacent float ``b`` fails), "domain" (``a`` is the
    domain's end), "unbounded" or "unproven"."""

    kind: str
    a: float | None = None
    b: float | None = None


def _doubling(first: int, last: int) -> list[int]:
    """Indices from ``first`` towards ``last`` at doubling steps, ``last`` included."""
    step = 1 if last >= first else -1
    return [first + step * (2**k - 1) for k in range(64) if 2**k - 1 < abs(last - first)] + [last]


def _refine_top(probe: _Probe, grid: np.ndarray, seg: list, dom: Domain) -> _Top | None:
    """The top of the scan's run ``seg`` as :func:`check` decides it (None: no point of the
    run passes)."""
    lo, t, i, j = seg
    if not probe.ok(t):
        f = v = t
        for _ in range(4):  # rounding: a few ulps down
            v = float(np.nextafter(v, -math.inf))
            if v >= lo and probe.ok(v):
                return _Top("value", v, f)
            f = v
        for x in [float(grid[k]) for k in _doubling(j, i)] + [lo]:
            if x < f and dom.contains(x):
                if probe.ok(x):
                    return _Top("value", *exact.bisect(probe.ok, x, f))
                f = x
        return None
    b = float(np.nextafter(t, math.inf))
    if b > dom.hi or (b == dom.hi and dom.hi_open):
        return _Top("domain", t)
    if j < grid.size - 1 and not probe.ok(b):
        return _Top("value", t, b)
    p = t
    for k in _doubling(j + 1, grid.size - 1) if j < grid.size - 1 else []:
        if not probe.ok(float(grid[k])):
            return _Top("value", *exact.bisect(probe.ok, p, float(grid[k])))
        p = float(grid[k])
    return _beyond(probe, Fraction(p)) if math.isinf(dom.hi) else _Top("domain", p)


def _beyond(probe: _Probe, start: Fraction) -> _Top:
    """The top when ``start`` (the grid's end) passes: "unbounded" if proven symbolically,
    else the boundary up to the largest double, else "unproven"."""
    margins = probe.margins()
    if margins is not None and probe.ok(2 * start) and \
            exact.keeps_sign_beyond(margins, probe.symbol, exact.rational(start)):
        return _Top("unbounded")
    if start < exact.MAX_FLOAT and not probe.ok(exact.MAX_FLOAT):
        return _Top("value", *exact.bisect(probe.ok, float(start), exact.MAX_FLOAT))
    return _Top("unproven")


def max_step(thm: Theorem, vary: str, values: Values, exact_ends: bool = False
             ) -> MaxStepResult:
    """Largest value of ``vary`` satisfying every condition of ``thm``, the others fixed.

    Generic: conditions need not be monotone in ``vary``, may contain Min/Max/Piecewise. The
    domain is scanned in float64 on a grid (100 points per decade over 1e-40..1e40, sparse
    beyond; points rejected on doubtful margins only are re-decided exactly); changes of
    feasibility are bisected to adjacent floats. The top is then decided as :func:`check`
    decides: if the float top fails, the run's lower points are searched; if the grid's top
    (1e308) passes, unboundedness is proven symbolically (the margins keep their sign beyond)
    or the search goes on to the largest double. The value always passes :func:`check` (see
    :class:`MaxStepResult`). The feasible set is reported as segments (``interval`` False when
    several); windows narrower than the grid spacing (2.3%) can be missed. ``intervals`` has
    every piece; its inner ends are exact (boundary roots) only with ``exact_ends`` (the CLI:
    a root costs sympy time), else their floats.
    """
    c = compiled(thm)
    cond_inputs = c.condition_inputs
    if vary not in cond_inputs:
        raise BadInput("--vary", f"{vary!r} does not appear in the conditions of {thm.id}; "
                       f"allowed: {', '.join(cond_inputs)}")
    if vary in values:
        raise BadInput("--vary", f"{vary!r} is varied, so it must not also be given with --set")
    validate(thm, values, [n for n in cond_inputs if n != vary])
    dom = thm.notation.spec(vary).domain
    probe = _Probe(c, vary, values)
    grid = _grid(dom.lo, dom.hi, dom.lo_open, dom.hi_open)
    segments = _segments(_Feasibility(c, vary, values), probe, grid, dom)
    top = None
    while segments and top is None:
        top = _refine_top(probe, grid, segments[-1], dom)
        if top is None:
            segments.pop()
    if top is None:
        fails = probe.failing(float(grid[0]))
        return MaxStepResult(vary, None, fails[0] if fails else None, fails, False, False, [])
    result = _answer(probe, dom, top, [s[:2] for s in segments])
    result.intervals = _intervals(probe, dom, result, exact_ends)
    return result


_EXACT_ENDS = 12  # pieces whose inner ends are found exactly (the rest: floats)


def _end(value: float | None, exact_form: sp.Expr | str | None, closed: bool,
         decimal: str | None = None) -> dict:
    """One end of a piece of the feasible set (``value`` None: infinite); ``text``: how people
    read it (``1/2000``, ``√2/4 ≈ 0.353553``, ``0.0140385``, ``∞``)."""
    text = exact_form if isinstance(exact_form, str) or exact_form is None else \
        exact.exact_text(exact_form)
    if decimal is None and value is not None:
        decimal = repr(value) if not float(value).is_integer() or abs(value) >= 1e16 else \
            str(int(value))
    return {"value": value, "exact": text, "decimal": decimal, "closed": closed,
            "text": _end_text(value, exact_form)}


def _end_text(value: float | None, exact_form: sp.Expr | str | None) -> str:
    if value is None:
        return "-∞" if exact_form == "-oo" else "∞"
    approx = f"{value:.6g}"
    if isinstance(exact_form, str):
        try:
            exact_form = sp.Rational(exact_form)
        except (TypeError, ValueError):
            return approx
    if exact_form is None:
        return approx
    if exact_form.is_Rational:
        text = exact.exact_text(exact_form)
        return text if len(text) <= 16 else approx
    text = pretty(exact_form)
    return f"{text} ≈ {approx}" if len(text) <= 24 else approx


def _inner_end(probe: _Probe, inside: float, outside: float, exact_ok: bool) -> dict:
    """An end between pieces: the float ``inside`` passes, the adjacent ``outside`` fails; the
    exact boundary where a failing margin vanishes, closed if it passes."""
    boundary = None
    if exact_ok:
        margins = probe.margins(failing_at=outside)
        lo, hi = sorted((Fraction(inside), Fraction(outside)))
        boundary = None if not margins else exact.boundary_root(margins, probe.symbol, lo, hi)
    if boundary is not None and boundary.is_Rational:
        closed = probe.ok(boundary)
    else:  # irrational (deciding at an algebraic number is slow) or unknown: by strictness
        failing = probe.failing(outside)
        closed = not any(cc.strict and cc.cond.name in failing for cc in probe.c.conditions)
    return _end(inside, boundary, closed)


def _intervals(probe: _Probe, dom: Domain, r: MaxStepResult, exact_ends: bool) -> list[dict]:
    """The pieces of the feasible set with both ends (see :class:`MaxStepResult`)."""
    out = []
    for k, (lo, hi) in enumerate(r.segments):
        exact_ok = exact_ends and (k < _EXACT_ENDS or k == len(r.segments) - 1)
        if dom.integer:
            first, last = math.ceil(lo), (math.floor(hi) if math.isfinite(hi) else None)
            lo_end = _end(float(first), str(first), True)
            hi_end = _end(None if last is None else float(last),
                          "oo" if last is None else str(last), last is not None)
        else:
            if k == 0 and lo <= dom.lo:
                lo_end = _end(dom.lo, exact.exact_text(exact.rational(Fraction(dom.lo))),
                              not dom.lo_open)
            elif k == 0 and math.isinf(dom.lo) and lo <= -1e308:
                lo_end = _end(None, "-oo", False)
            else:
                lo_end = _inner_end(probe, lo, math.nextafter(lo, -math.inf), exact_ok)
            if k < len(r.segments) - 1:
                hi_end = _inner_end(probe, hi, math.nextafter(hi, math.inf), exact_ok)
            elif r.value is None:
                hi_end = _end(None, "oo", False)
            else:
                hi_end = _end(r.value, r.exact, r.attained, r.decimal)
        out.append({"lo": lo_end, "hi": hi_end})
    return out


def interval_text(piece: dict) -> str:
    """A piece of the feasible set as people read it: ``(0, 1/2000]``, ``[2, ∞)``."""
    lo, hi = piece["lo"], piece["hi"]
    return (f"{'[' if lo['closed'] else '('}{lo['text']}, {hi['text']}"
            f"{']' if hi['closed'] else ')'}")


def set_text(intervals: list[dict]) -> str:
    """The feasible set as a union of pieces (``∅`` when empty)."""
    return " ∪ ".join(interval_text(p) for p in intervals) if intervals else "∅"


def _answer(probe: _Probe, dom: Domain, top: _Top, segments: list[list]) -> MaxStepResult:
    """The result from the top found: value (passing as float and repr), binding, exact."""
    vary, interval = probe.vary, len(segments) == 1
    domain_end = [f"domain of {vary} ({dom.describe()})"]
    if top.kind in ("unbounded", "unproven"):
        segments[-1][1] = math.inf
        unproven = top.kind == "unproven"
        return MaxStepResult(
            vary, None, None, [], False, interval, [tuple(s) for s in segments],
            unbounded=not unproven, unbounded_unproven=unproven,
            note="feasible up to the largest double, 1.7976931348623157e308, but unboundedness "
                 "could not be proven" if unproven else "")
    binding = domain_end if top.kind == "domain" else probe.failing(top.b)
    if top.kind == "domain":
        boundary = exact.rational(Fraction(dom.hi if dom.hi_open else top.a))
    else:
        failing = probe.margins(failing_at=top.b)
        boundary = None if failing is None else exact.boundary_root(
            failing, probe.symbol, Fraction(top.a), Fraction(top.b))
    attained = not any(cc.strict and cc.cond.name in binding for cc in probe.c.conditions) and \
        not (top.kind == "domain" and dom.hi_open)
    if dom.integer:  # the largest integer whose float passes (as itself and as its repr)
        k = exact.largest_integer(lambda n: probe.both(float(n)), top.a, segments)
        value = None if k is None else float(k)
        if k is not None:
            above = probe.failing(k + 1) if k + 1 <= dom.hi else domain_end
            binding, small = above or binding, abs(k) < 2**53  # beyond 2**53 floats skip
            boundary, decimal = sp.Integer(k) if above and small else None, \
                str(k) if small else repr(value)
    else:
        value = exact.largest_passing(probe.both, top.a, segments[-1][0])
        # the shortest decimal at least the value that check accepts, up to the boundary
        # (excluded unless attained; below the failing float if unknown); else repr(value)
        decimal = None if value is None else exact.shortest_decimal(
            probe.ok, value, Fraction(top.b) if boundary is None else boundary,
            attained and boundary is not None) or exact.decimal_text(Fraction(repr(value)))
    if value is None:
        return MaxStepResult(vary, None, binding[0] if binding else None, binding, False, False,
                             [], note="no representable value near the boundary passes check")
    segments[-1][1] = float(value)
    attained = not any(cc.strict and cc.cond.name in binding for cc in probe.c.conditions) and \
        not (top.kind == "domain" and dom.hi_open)
    return MaxStepResult(vary, float(value), binding[0] if binding else None, binding, attained,
                         interval, [tuple(s) for s in segments], exact=None if boundary is None
                         else exact.exact_text(boundary), decimal=decimal)


# ---------------------------------------------------------------------------------------------
# max-step over a symbol the statement only asks to exist ("some M > B/ρ")
# ---------------------------------------------------------------------------------------------
_ZOOM_POINTS = 17
_CHOICE_TOLERANCE = 1e-12  # a chosen value allows the best vary found up to this share


def _float_largest(c: Compiled, vary: str, grid: np.ndarray, values: Values) -> float:
    """The largest feasible float of ``vary`` at ``values`` (float64 only: a search heuristic;
    -inf when nothing on the grid is feasible, inf when the grid's top is)."""
    feas = _Feasibility(c, vary, values)
    ok, _ = feas.ok_doubtful(grid)
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return -math.inf
    j = int(idx[-1])
    if j == grid.size - 1:
        return math.inf
    return exact.bisect(feas.ok1, float(grid[j]), float(grid[j + 1]))[0]


def _candidates(best: float, lo: float, hi: float) -> list[Fraction]:
    """Decimals with 1 to 17 significant digits near ``best``, inside ``[lo, hi]``, shortest
    first."""
    out: list[Fraction] = []
    if best == 0:
        return [Fraction(0)]
    for digits in range(1, 18):
        text = f"{best:.{digits - 1}e}"
        for step in (0, -1, 1):
            mantissa, _, exponent = text.partition("e")
            unit = Fraction(10) ** (int(exponent) - digits + 1)
            d = Fraction(mantissa) * Fraction(10) ** int(exponent) + step * unit
            if lo <= d <= hi and d not in out:
                out.append(d)
    return out


def max_step_choosing(thm: Theorem, vary: str, values: Values, choose: str,
                      words: str = "", exact_ends: bool = False) -> MaxStepResult:
    """:func:`max_step` of ``vary`` when ``choose`` (a symbol the statement only asks to exist)
    is not given: ``choose`` is searched over its domain for the value allowing the largest
    ``vary`` (float64 scan: 2.5 points per decade, then zooming on the best to 1e-13), the
    shortest decimal within 1e-12 of that best is chosen, and the answer is :func:`max_step`
    at it (exact, as :func:`check` decides). ``chosen`` and ``note`` say what was chosen; a
    search, not a proof: an optimum in a window narrower than the scan can be missed."""
    c = compiled(thm)
    if choose not in c.condition_inputs or choose == vary:
        return max_step(thm, vary, values, exact_ends)
    validate(thm, values, [n for n in c.condition_inputs if n not in (vary, choose)])
    grid = _grid(*_bounds(thm.notation.spec(vary).domain))
    cdom = thm.notation.spec(choose).domain
    xs = _grid(*_bounds(cdom))[::40]

    def f(x: float | Fraction) -> float:
        return _float_largest(c, vary, grid, {**values, choose: Fraction(x)})

    tops = [f(x) for x in xs]
    k = int(np.argmax(tops))
    best, lo, hi = tops[k], float(xs[max(k - 1, 0)]), float(xs[min(k + 1, xs.size - 1)])
    if best == -math.inf:  # nothing feasible whatever the choice: report at the scan's first
        return max_step(thm, vary, {**values, choose: Fraction(float(xs[0]))}, exact_ends)
    best_x = float(xs[k])
    for _ in range(40):
        if hi - lo <= 1e-13 * max(abs(lo), abs(hi)):
            break
        pts = (np.geomspace(lo, hi, _ZOOM_POINTS) if lo > 0 else
               np.linspace(lo, hi, _ZOOM_POINTS))
        vals = [f(x) for x in pts]
        j = int(np.argmax(vals))
        if vals[j] > best or (vals[j] == best and pts[j] < best_x):
            best, best_x = vals[j], float(pts[j])
        lo, hi = float(pts[max(j - 1, 0)]), float(pts[min(j + 1, pts.size - 1)])
    need = best - _CHOICE_TOLERANCE * abs(best) if math.isfinite(best) else best
    pick = _simplest(f, need, cdom, [(best_x, lo, hi)] + [
        (float(x), float(x) / 2, float(x) * 2) for x in sorted(
            (x for x, top in zip(xs, tops, strict=True) if top >= need and x > 0),
            key=lambda x: abs(math.log10(x)))[:60]])
    result = max_step(thm, vary, {**values, choose: pick}, exact_ends)
    text = exact.decimal_text(pick)
    result.chosen = {choose: text}
    edge = [r.name for r in check(thm, {**values, choose: pick, vary: Fraction(1)})[1]
            if r.name in _edge_conditions(c, vary, choose) and r.holds
            and abs(r.margin) <= 1e-9 * max(abs(r.lhs), abs(r.rhs), 1e-300)]
    note = (f"{choose} was not given ({words or 'the statement only asks that one exists'}); "
            f"chose {choose} = {text}, the value found to allow the largest {vary}")
    if edge:
        note += (f"; it lies at the edge of {', '.join(edge)}, so values nearer the edge allow "
                 f"slightly more (a supremum over {choose}, approached, not attained)")
    result.note = f"{note}. {result.note}".strip() if result.note else note
    return result


def _simplest(f: Callable[[Fraction], float], need: float, dom: Domain,
              around: list[tuple[float, float, float]]) -> Fraction:
    """The shortest decimal near one of the ``(point, lo, hi)`` with ``f`` at least ``need``;
    among equally short ones the nearest to 1 in magnitude (``M = 2``, not ``M = 1e+300``)."""
    for digits in range(1, 18):
        found = [d for point, lo, hi in around
                 for d in _candidates(point, Fraction(lo), Fraction(hi))
                 if len(_digits(d)) == digits and dom.contains(d)]
        found = sorted(set(found), key=lambda d: abs(math.log10(abs(d))) if d else 0.0)
        for d in found[:24]:
            if f(d) >= need:
                return d
    return Fraction(around[0][0])


def _digits(d: Fraction) -> str:
    """The significant digits of a decimal."""
    text = exact.decimal_text(d).lower().lstrip("-").split("e")[0].replace(".", "")
    return text.strip("0") or "0"


def _bounds(dom: Domain) -> tuple[float, float, bool, bool]:
    return dom.lo, dom.hi, dom.lo_open, dom.hi_open


def _edge_conditions(c: Compiled, vary: str, choose: str) -> set[str]:
    """Conditions with the chosen symbol and without the varied one."""
    return {cc.cond.name for cc in c.conditions if choose in cc.args and vary not in cc.args}
