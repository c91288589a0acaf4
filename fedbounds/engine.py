"""Generic computations over :class:`~fedbounds.model.Theorem` data.

Every expression is compiled once per theorem with :func:`sympy.lambdify` (numpy backend);
user values never pass through ``sympify``. Borderline comparisons (|margin| within 1e-9 of
the scale) are re-decided exactly with rational arithmetic, so ``gamma = 1/mu`` satisfies
``gamma <= 1/mu`` exactly.
"""

from __future__ import annotations

import difflib
import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy as sp

from .errors import BadInput
from .model import Condition, Theorem

Values = dict[str, Fraction]


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


def _lambdify(args: list[sp.Symbol], expr: sp.Expr):
    return sp.lambdify(args, expr, modules="numpy")


class Compiled:
    """A theorem with every condition, bound term and derived quantity lambdified once."""

    def __init__(self, thm: Theorem) -> None:
        self.thm = thm
        self.symbols = sorted(thm.free_symbols(), key=lambda s: s.name)
        self.names = [s.name for s in self.symbols]
        self.conditions: list[_CompiledCondition] = []
        for c in thm.conditions:
            if not isinstance(c.rel, (sp.Le, sp.Lt, sp.Ge, sp.Gt)):
                raise TypeError(f"{thm.id}: condition {c.name!r} must be <, <=, >, >= "
                                f"(got {c.rel})")
            # expand both sides separately: a condition that holds identically once derived
            # quantities are substituted (e.g. M = 4/q > 2/q) stays a relation to evaluate
            rel = type(c.rel)(thm.expand(c.rel.lhs), thm.expand(c.rel.rhs), evaluate=False)
            sign = 1 if isinstance(rel, (sp.Le, sp.Lt)) else -1
            strict = isinstance(rel, (sp.Lt, sp.Gt))
            self.conditions.append(_CompiledCondition(
                c, rel, sorted(s.name for s in rel.free_symbols),
                _lambdify(self.symbols, rel.lhs), _lambdify(self.symbols, rel.rhs), sign, strict))
        self.terms = [(t, _lambdify(self.symbols, thm.expand(t.expr))) for t in thm.bound]
        self.derived = [(s.name, _lambdify(self.symbols, thm.expand(v)))
                        for s, v in thm.derived.items()]

    def args(self, values: dict[str, object]) -> list[object]:
        return [values[n] for n in self.names]


_CACHE: dict[int, Compiled] = {}


def compiled(thm: Theorem) -> Compiled:
    """The compiled form of ``thm`` (cached: compiled once per theorem object)."""
    key = id(thm)
    if key not in _CACHE or _CACHE[key].thm is not thm:
        _CACHE[key] = Compiled(thm)
    return _CACHE[key]


# ---------------------------------------------------------------------------------------------
# validation (the one boundary layer)
# ---------------------------------------------------------------------------------------------
def validate(thm: Theorem, values: Values, required: list[str], optional: list[str] = (),
             argument: str = "--set") -> Values:
    """Check names and domains of ``values``; every name in ``required`` must be present."""
    allowed = set(required) | set(optional) | set(thm.inputs())
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
        raise BadInput(argument, f"missing value for {desc}")
    for name, v in values.items():
        dom = thm.notation.spec(name).domain
        if not dom.contains(v):
            raise BadInput(f"{argument} {name}", f"{name}={_show(v)} is outside its domain "
                           f"{dom.describe()} ({thm.notation.spec(name).description})")
    return values


def _show(v: Fraction) -> str:
    return str(v) if v.denominator == 1 or v.denominator < 10**6 else repr(float(v))


# ---------------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------------
@dataclass
class ConditionResult:
    name: str
    relation: str
    lhs: float
    rhs: float
    margin: float
    holds: bool
    source: str

    def as_json(self) -> dict:
        return {"name": self.name, "relation": self.relation, "lhs": _num(self.lhs),
                "rhs": _num(self.rhs), "margin": _num(self.margin), "holds": self.holds,
                "source": self.source}


def _num(x: float) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def _eval(f, args) -> float:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            v = f(*args)
        except (ZeroDivisionError, OverflowError, ValueError):
            return math.nan
    try:
        v = complex(v)
    except TypeError:
        return math.nan
    return v.real if abs(v.imag) <= 1e-300 else math.nan


def _exact_holds(cc: _CompiledCondition, values: Values) -> bool | None:
    """Decide a borderline condition exactly with rational inputs (None if undecidable)."""
    subs = {s: sp.Rational(values[s.name].numerator, values[s.name].denominator)
            for s in cc.expanded.free_symbols}
    try:
        r = cc.expanded.xreplace(subs)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return bool(r) if isinstance(r, sp.logic.boolalg.BooleanAtom) else None


def _condition_result(cc: _CompiledCondition, args: list, values: Values | None) -> ConditionResult:
    lhs, rhs = _eval(cc.lhs, args), _eval(cc.rhs, args)
    margin = cc.sign * (rhs - lhs) + 0.0
    scale = max(abs(lhs), abs(rhs), 1e-300)
    if math.isnan(margin):
        holds = False
    elif math.isfinite(scale) and abs(margin) <= 1e-9 * scale and values is not None:
        exact = _exact_holds(cc, values)
        holds = exact if exact is not None else (margin > 0 if cc.strict else margin >= 0)
    else:
        holds = margin > 0 if cc.strict else margin >= 0
    op = {sp.Le: "<=", sp.Lt: "<", sp.Ge: ">=", sp.Gt: ">"}[type(cc.cond.rel)]
    rel = f"{sp.sstr(cc.cond.rel.lhs)} {op} {sp.sstr(cc.cond.rel.rhs)}"
    return ConditionResult(cc.cond.name, rel, lhs, rhs, margin, holds, cc.cond.source)


def check(thm: Theorem, values: Values) -> tuple[bool, list[ConditionResult]]:
    """Evaluate every condition of ``thm`` at ``values`` (validated: names, domains)."""
    validate(thm, values, thm.condition_inputs())
    c = compiled(thm)
    full = {n: values.get(n, Fraction(1)) for n in c.names}  # unused names (e.g. T) do not matter
    results = _evaluate_conditions(c, full)
    return all(r.holds for r in results), results


def _evaluate_conditions(c: Compiled, full: Values) -> list[ConditionResult]:
    # numpy scalars, as in max-step: c/0 is +inf (e.g. με/(8σ_*²) with σ_* = 0 is no cap),
    # not a ZeroDivisionError turned into NaN; 0/0 stays NaN (violated)
    args = c.args({n: np.float64(v) for n, v in full.items()})
    return [_condition_result(cc, args, full) for cc in c.conditions]


# ---------------------------------------------------------------------------------------------
# bound
# ---------------------------------------------------------------------------------------------
@dataclass
class BoundResult:
    value: float
    terms: dict[str, float]
    derived: dict[str, float]
    feasible: bool
    violated: list[str] = field(default_factory=list)


def bound(thm: Theorem, values: Values) -> BoundResult:
    """Value of the bound and its named terms; conditions are checked and reported alongside."""
    if not thm.bound:
        raise BadInput("ID", f"{thm.id} states no computable bound (it states orders only); "
                       "use `fedbounds complexity`")
    validate(thm, values, thm.inputs())
    c = compiled(thm)
    args = c.args({n: np.float64(values[n]) for n in c.names})
    terms = {t.name: _eval(f, args) for t, f in c.terms}
    derived = {n: _eval(f, args) for n, f in c.derived}
    ok, results = check(thm, {n: values[n] for n in thm.condition_inputs()})
    return BoundResult(float(sum(terms.values())), terms, derived, ok,
                       [r.name for r in results if not r.holds])


# ---------------------------------------------------------------------------------------------
# max-step: largest feasible value of one symbol
# ---------------------------------------------------------------------------------------------
@dataclass
class MaxStepResult:
    vary: str
    value: float | None
    binding: str | None
    binding_all: list[str]
    attained: bool
    interval: bool
    segments: list[tuple[float, float]]
    unbounded: bool = False

    def as_json(self, theorem: str) -> dict:
        return {"theorem": theorem, "vary": self.vary, "value": self.value,
                "binding": self.binding, "binding_all": self.binding_all,
                "attained": self.attained, "interval": self.interval,
                "unbounded": self.unbounded,
                "feasible_set": [[a, b if math.isfinite(b) else None] for a, b in self.segments]}


def _grid(lo: float, hi: float, lo_open: bool, hi_open: bool) -> np.ndarray:
    """Candidate points of a domain: log-spaced over 80 decades, both signs where allowed."""
    pos = np.logspace(-40, 40, 8001)
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
    """Feasibility of one varied symbol with the others fixed, vectorized over the grid."""

    def __init__(self, c: Compiled, vary: str, values: Values) -> None:
        self.c, self.vary, self.values = c, vary, values
        self.idx = c.names.index(vary)
        self.base = [float(values.get(n, 1)) for n in c.names]

    def margins(self, v: np.ndarray) -> np.ndarray:
        """(conditions, points) array of signed margins; NaN counts as violated."""
        v = np.asarray(v, dtype=float)
        args = [np.full(v.shape, b) for b in self.base]
        args[self.idx] = v
        out = np.empty((len(self.c.conditions), v.size))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for k, cc in enumerate(self.c.conditions):
                lhs = np.broadcast_to(np.asarray(cc.lhs(*args), dtype=float), v.shape)
                rhs = np.broadcast_to(np.asarray(cc.rhs(*args), dtype=float), v.shape)
                out[k] = cc.sign * (rhs - lhs)
        return out

    def ok(self, v: np.ndarray) -> np.ndarray:
        m = self.margins(v)
        strict = np.array([cc.strict for cc in self.c.conditions])[:, None]
        good = np.where(strict, m > 0, m >= 0) & ~np.isnan(m)
        return good.all(axis=0)

    def ok1(self, v: float) -> bool:
        return bool(self.ok(np.array([v]))[0])

    def failing(self, v: float) -> list[str]:
        m = self.margins(np.array([v]))[:, 0]
        return [cc.cond.name for cc, mk in zip(self.c.conditions, m, strict=True)
                if math.isnan(mk) or mk < 0 or (cc.strict and mk <= 0)]


def _bisect(feas: _Feasibility, a: float, b: float) -> tuple[float, float]:
    """Shrink [a, b] (feasibility differs at the ends) to adjacent floats; returns (a, b)."""
    fa = feas.ok1(a)
    for _ in range(2200):
        if a > 0 and b > 0 and max(a, b) / min(a, b) > 2:
            mid = math.sqrt(a) * math.sqrt(b)
        elif a < 0 and b < 0 and max(-a, -b) / min(-a, -b) > 2:
            mid = -math.sqrt(-a) * math.sqrt(-b)
        else:
            mid = 0.5 * (a + b)
        if mid in (a, b):
            break
        if feas.ok1(mid) == fa:
            a = mid
        else:
            b = mid
    return a, b


def max_step(thm: Theorem, vary: str, values: Values) -> MaxStepResult:
    """Largest value of ``vary`` satisfying every condition of ``thm``, the others fixed.

    Generic: conditions need not be monotone in ``vary`` and may contain Min/Max/Piecewise.
    The domain of ``vary`` is scanned on a grid spanning 80 decades (100 points per decade);
    every change of feasibility is refined by bisection to adjacent floating-point numbers.
    The feasible set is reported as segments; ``interval`` is False when there are several.
    Feasible windows narrower than the grid spacing (2.3%) can be missed.
    """
    cond_inputs = thm.condition_inputs()
    if vary not in cond_inputs:
        raise BadInput("--vary", f"{vary!r} does not appear in the conditions of {thm.id}; "
                       f"allowed: {', '.join(cond_inputs)}")
    if vary in values:
        raise BadInput("--vary", f"{vary!r} is varied, so it must not also be given with --set")
    validate(thm, values, [n for n in cond_inputs if n != vary])
    dom = thm.notation.spec(vary).domain
    c = compiled(thm)
    feas = _Feasibility(c, vary, values)
    grid = _grid(dom.lo, dom.hi, dom.lo_open, dom.hi_open)
    ok = feas.ok(grid)
    segments: list[list[float]] = []
    i = 0
    while i < grid.size:
        if not ok[i]:
            i += 1
            continue
        j = i
        while j + 1 < grid.size and ok[j + 1]:
            j += 1
        lo = (dom.lo if math.isfinite(dom.lo) else grid[0]) if i == 0 else \
            _bisect(feas, grid[i], grid[i - 1])[0]
        hi = math.inf if (j == grid.size - 1 and math.isinf(dom.hi)) else (
            grid[j] if j == grid.size - 1 else _bisect(feas, grid[j], grid[j + 1])[0])
        segments.append([float(lo), float(hi)])
        i = j + 1
    if not segments:
        fails = feas.failing(float(grid[0]))
        return MaxStepResult(vary, None, fails[0] if fails else None, fails, False, False, [])
    top = segments[-1][1]
    if math.isinf(top):
        return MaxStepResult(vary, None, None, [], False, len(segments) == 1,
                             [tuple(s) for s in segments], unbounded=True)
    value = top
    attained = True
    if dom.integer:
        value = _largest_integer(feas, segments)
        if value is None:
            fails = feas.failing(float(grid[0]))
            return MaxStepResult(vary, None, fails[0] if fails else None, fails, False, False,
                                 [tuple(s) for s in segments])
    above = value + 1 if dom.integer else float(np.nextafter(value, math.inf))
    binding = feas.failing(above) if above <= dom.hi else []
    if not dom.integer:
        value = _exactly_feasible(c, vary, values, value, segments[-1][0])
        segments[-1][1] = value
    if not binding and dom.hi == value:
        binding = [f"domain of {vary} ({dom.describe()})"]
    # strict conditions: the supremum is not attained; we report the largest feasible float
    attained = not any(cc.strict and cc.cond.name in binding for cc in c.conditions)
    return MaxStepResult(vary, float(value), binding[0] if binding else None, binding, attained,
                         len(segments) == 1, [tuple(s) for s in segments])


def _exactly_feasible(c: Compiled, vary: str, values: Values, value: float, lo: float) -> float:
    """Step ``value`` down (a few ulps at most) until it passes :func:`check` exactly, both as
    the binary float and as its shortest decimal ``repr`` (what a user copies into ``check``):
    e.g. fl(1/2000) = 0.0005000000000000000104 > 1/2000 fails gamma <= 1/(2(A+MC)) exactly."""
    base = {n: values.get(n, Fraction(1)) for n in c.names}

    def passes(v: float) -> bool:
        return all(all(r.holds for r in _evaluate_conditions(c, {**base, vary: x}))
                   for x in (Fraction(v), Fraction(repr(v))))

    v = value
    for _ in range(64):
        if v < lo:
            break
        if passes(v):
            return v
        v = float(np.nextafter(v, -math.inf))
    return value


def _largest_integer(feas: _Feasibility, segments: list[list[float]]) -> int | None:
    for lo, hi in reversed(segments):
        k = math.floor(hi)
        while k >= math.ceil(lo) and k >= hi - 10**6:
            if feas.ok1(float(k)):
                return int(k)
            k -= 1
    return None
