"""Findings that follow from a theorem's conditions — computed from the Theorem data, never typed.

* :func:`ratio_bound` — the range a ratio of two symbols (e.g. η_y/η_x) is forced into by the
  conditions, found symbolically: write ``num = ρ·den`` (solving for one input of ``num``),
  scale the step-size symbols by ``s`` and collect each condition's margin by powers of ``s``.
  If every group above the lowest is nonpositive (symbolically, else on a random sample), the
  margin ≥ 0 forces the lowest group ≥ 0 for *all* step sizes (strictly when a dropped group is
  strictly negative); otherwise only for small steps. The lowest group is solved for ρ.
* :func:`ratio_infimum` — the same ratio's infimum over the feasible set at given constants,
  numerically (grid over the free symbols + bisection on ρ); a check of the symbolic value.
* :func:`empty_when` — conditions that involve none of the free symbols: the condition set is
  empty exactly when such a condition fails (e.g. ``m ≥ M`` makes it empty for m < M).
* :func:`findings` — all of the above for one theorem, ratio candidates discovered from the
  conditions (``a/b`` of two symbols of one family, e.g. ``eta_x/eta_y``).
* :func:`explain` — the findings that given values violate: why ``check`` finds them
  infeasible (e.g. η_y/η_x = 5 where (9) forces η_y/η_x > 20κ² = 20).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy as sp

from . import exact
from .engine import compiled
from .model import Theorem
from .pretty import pretty

__all__ = ["Finding", "Explanation", "findings", "explain", "ratio_bound", "ratio_infimum",
           "empty_when", "ratio_candidates"]

RHO = sp.Symbol("rho", positive=True)
_S = sp.Symbol("s_scale", positive=True)


@dataclass(frozen=True)
class Finding:
    """One computed consequence of a theorem's conditions."""

    id: str
    text: str
    value: sp.Expr | float | None
    source: str
    kind: str = ""
    detail: str = ""
    # a ratio finding: (numerator, denominator) names and the operator of "ratio op value";
    # an "empty" finding: the condition that involves none of the free symbols
    ratio: tuple[str, str] | None = field(default=None, compare=False)
    op: str = field(default="", compare=False)
    conditions: tuple[str, ...] = field(default=(), compare=False)
    # an "empty" finding: the names of the free symbols it holds whatever their values
    free: tuple[str, ...] = field(default=(), compare=False)
    everywhere: bool = field(default=True, compare=False)

    def as_json(self) -> dict:
        v = self.value
        if isinstance(v, sp.Basic):
            v = sp.sstr(v)
        return {"id": self.id, "kind": self.kind, "text": self.text, "value": v,
                "source": self.source, "detail": self.detail}


# ---------------------------------------------------------------------------------------------
def _margin(thm: Theorem, rel: sp.Rel) -> tuple[sp.Expr, bool]:
    """(expression that must be ≥ 0 (> 0 if strict), strict) with derived quantities expanded."""
    lhs, rhs = thm.expand(rel.lhs), thm.expand(rel.rhs)
    g = lhs - rhs if isinstance(rel, (sp.Ge, sp.Gt)) else rhs - lhs
    return g, isinstance(rel, (sp.Gt, sp.Lt))


def _sample(syms: list[sp.Symbol], thm: Theorem, n: int = 400, seed: int = 0) -> np.ndarray:
    """Random points: log-uniform over 1e-3..1e3 (integers 1..1e3) respecting each domain."""
    rng = np.random.default_rng(seed)
    cols = []
    for s in syms:
        dom = thm.notation.spec(s.name).domain if s.name in thm.notation else None
        v = 10 ** rng.uniform(-3, 3, n)
        if dom is not None:
            if dom.integer:
                v = np.floor(10 ** rng.uniform(0, 3, n))
            hi = dom.hi if math.isfinite(dom.hi) else np.inf
            v = np.minimum(v, hi)
        cols.append(v)
    return np.array(cols)


def _numeric_sign(expr: sp.Expr, thm: Theorem) -> tuple[float, float]:
    """(min, max) of ``expr`` over a random sample of positive values of its symbols."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    if not syms:
        v = float(expr)
        return v, v
    pts = _sample(syms, thm)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vals = np.broadcast_to(np.asarray(sp.lambdify(syms, expr, "numpy")(*pts), dtype=float),
                               pts.shape[1:])
    vals = vals[np.isfinite(vals)]
    return (float(vals.min()), float(vals.max())) if vals.size else (math.nan, math.nan)


def _is_nonpositive(expr: sp.Expr, thm: Theorem) -> tuple[bool, bool]:
    """(≤ 0 everywhere, < 0 everywhere): symbolically if sympy decides, else on a sample."""
    if expr.is_nonpositive:
        return True, bool(expr.is_negative)
    lo, hi = _numeric_sign(expr, thm)
    return (not math.isnan(hi) and hi <= 0), (not math.isnan(hi) and hi < 0)


def _positive_factor(f: sp.Expr, thm: Theorem) -> bool:
    if f.is_positive:
        return True
    if f.has(RHO):
        return False
    lo, _ = _numeric_sign(f, thm)
    return not math.isnan(lo) and lo > 0


def _in_derived_terms(thm: Theorem, r: sp.Expr) -> sp.Expr:
    """Rewrite ``r`` with a derived monomial (κ = L_f/μ) when that removes a symbol."""
    best = r
    for d, v in thm.derived.items():
        v = thm.expand(v)
        if not (isinstance(v, (sp.Mul, sp.Pow)) and v.free_symbols and v.free_symbols
                <= best.free_symbols):
            continue
        for x in sorted(v.free_symbols, key=lambda s: s.name):
            sol = sp.solve(sp.Eq(d, v), x)
            if len(sol) != 1:
                continue
            cand = sp.simplify(best.xreplace({x: sol[0]}))
            if len(cand.free_symbols) < len(best.free_symbols):
                best = cand
                break
    return best


@dataclass(frozen=True)
class _RatioResult:
    condition: str
    source: str
    op: str  # ">", ">=", "<", "<="
    value: sp.Expr
    everywhere: bool  # for all step sizes (else: for small steps only)


def _condition_ratio(thm: Theorem, cond, num_e: sp.Expr, pivot: sp.Symbol, pivot_val: sp.Expr,
                     free: list[sp.Symbol]) -> _RatioResult | None:
    g, strict = _margin(thm, cond.rel)
    g = g.xreplace({pivot: pivot_val})
    if not g.has(RHO):
        return None
    g = sp.expand(g.xreplace({f: _S * f for f in free if f != pivot}))
    groups: dict[sp.Expr, sp.Expr] = {}
    for t in sp.Add.make_args(g):
        c, dep = t.as_independent(_S, as_Add=False)
        if dep == 1:
            p = sp.Integer(0)
        elif dep == _S:
            p = sp.Integer(1)
        elif isinstance(dep, sp.Pow) and dep.base == _S and dep.exp.is_number:
            p = dep.exp
        else:
            return None  # not a Laurent polynomial in the step scale (Min/Max, …)
        groups[p] = groups.get(p, sp.Integer(0)) + c
    low = min(groups)
    lead = sp.factor(groups.pop(low))
    everywhere, strict_drop = True, False
    for c in groups.values():
        nonpos, neg = _is_nonpositive(c, thm)
        everywhere &= nonpos
        strict_drop |= neg
    factors = sp.Mul.make_args(lead)
    q = sp.Mul(*[f for f in factors if not _positive_factor(f, thm)])
    if not q.has(RHO):
        return None
    roots = [r for r in sp.solve(q, RHO) if r.is_real is not False and r.is_negative is not True]
    if len(roots) != 1:
        return None
    r = sp.simplify(roots[0])
    lo_v, _ = _numeric_sign(q.xreplace({RHO: 2 * r}), thm)
    _, hi_v = _numeric_sign(q.xreplace({RHO: r / 2}), thm)
    strict_out = strict or strict_drop
    if lo_v > 0 and hi_v < 0:
        op = ">" if strict_out else ">="
    else:
        lo2, _ = _numeric_sign(q.xreplace({RHO: r / 2}), thm)
        _, hi2 = _numeric_sign(q.xreplace({RHO: 2 * r}), thm)
        if not (lo2 > 0 and hi2 < 0):
            return None
        op = "<" if strict_out else "<="
    return _RatioResult(cond.name, cond.source, op, _in_derived_terms(thm, r), everywhere)


def _inputs_of(thm: Theorem, e: sp.Expr) -> list[sp.Symbol]:
    return sorted(thm.expand(e).free_symbols, key=lambda s: s.name)


def ratio_bound(thm: Theorem, num: sp.Symbol, den: sp.Symbol,
                free: list[sp.Symbol] | None = None) -> Finding | None:
    """The range of ``num/den`` forced by the conditions (symbolic; see the module docstring).

    ``free`` are the step-size symbols scaled together (default: the inputs of num and den).
    Returns the strongest bound over all conditions, or None if no condition yields one."""
    num_e, den_e = thm.expand(num), thm.expand(den)
    free = free or sorted(num_e.free_symbols | den_e.free_symbols, key=lambda s: s.name)
    results: list[_RatioResult] = []
    for pivot in sorted(num_e.free_symbols - den_e.free_symbols, key=lambda s: s.name):
        if sp.degree(num_e, pivot) != 1:
            continue
        sol = sp.solve(sp.Eq(num_e, RHO * den_e), pivot)
        if len(sol) != 1:
            continue
        for cond in thm.conditions:
            res = _condition_ratio(thm, cond, num_e, pivot, sol[0], free)
            if res is not None:
                results.append(res)
        if results:
            break
    if not results:
        return None
    lower = [r for r in results if r.op.startswith(">")]
    pick = lower or results
    best = pick[0]
    for r in pick[1:]:
        d = sp.simplify(r.value - best.value)
        better = (d.is_positive if lower else d.is_negative)
        if better or (d == 0 and r.everywhere and not best.everywhere):
            best = r
    same = [r for r in pick if sp.simplify(r.value - best.value) == 0]
    where = "for all step sizes" if any(r.everywhere for r in same) else "for small step sizes"
    ratio = f"{num.name}/{den.name}"
    expanded = sp.sstr(thm.expand(best.value))
    text = (f"{ratio} {best.op} {sp.sstr(best.value)}"
            + (f" (= {expanded})" if expanded != sp.sstr(best.value) else "")
            + f" is forced by {', '.join(r.condition for r in same)} {where}")
    return Finding(f"{thm.id}:ratio:{ratio}", text, best.value,
                   "; ".join(dict.fromkeys(r.source for r in same)), "ratio",
                   f"{best.op} {sp.sstr(best.value)}", (num.name, den.name), best.op,
                   tuple(r.condition for r in same), any(r.everywhere for r in same))


def ratio_candidates(thm: Theorem) -> list[tuple[sp.Symbol, sp.Symbol]]:
    """Pairs (a, b) written as a/b in some condition, both of one family (same name stem)."""
    out: list[tuple[sp.Symbol, sp.Symbol]] = []
    for cond in thm.conditions:
        for e in sp.preorder_traversal(cond.rel):
            if not isinstance(e, sp.Mul):
                continue
            ups = [a for a in e.args if isinstance(a, sp.Symbol)]
            downs = [a.base for a in e.args if isinstance(a, sp.Pow) and a.exp == -1
                     and isinstance(a.base, sp.Symbol)]
            for a in ups:
                for b in downs:
                    if a.name.split("_")[0] == b.name.split("_")[0] and a != b:
                        pair = tuple(sorted((a, b), key=lambda s: s.name))
                        if pair not in out:
                            out.append(pair)
    return out


def ratio_infimum(thm: Theorem, num: sp.Symbol, den: sp.Symbol, values: dict[str, float],
                  free: list[str] | None = None, points: int = 41,
                  span: tuple[float, float] = (-14.0, 2.0)) -> float | None:
    """Infimum of ``num/den`` over the feasible set with the other inputs fixed at ``values``:
    the free symbols run over a log grid (``points`` per axis over 10^span); one input of
    ``num`` is solved from the ratio. Bisection on the ratio to 1e-9 relative. None if no grid
    point is feasible for any ratio tried. An upper estimate of the true infimum."""
    num_e, den_e = thm.expand(num), thm.expand(den)
    free = free or sorted(s.name for s in num_e.free_symbols | den_e.free_symbols)
    c = compiled(thm)
    pivot = next(s for s in sorted(num_e.free_symbols - den_e.free_symbols, key=lambda s: s.name)
                 if sp.degree(num_e, s) == 1 and s.name in c.names)
    pv = sp.lambdify([RHO] + c.symbols, sp.solve(sp.Eq(num_e, RHO * den_e), pivot)[0], "numpy")
    others = [n for n in free if n != pivot.name]
    axis = np.logspace(span[0], span[1], points)
    mesh = np.meshgrid(*[axis] * len(others), indexing="ij")
    cols = {n: g.ravel() for n, g in zip(others, mesh, strict=True)}
    size = axis.size ** len(others)

    def feasible(rho: float) -> bool:
        args = [cols[n] if n in cols else np.full(size, float(values.get(n, 1.0)))
                for n in c.names]
        args[c.names.index(pivot.name)] = np.broadcast_to(pv(rho, *args), (size,))
        ok = np.ones(size, dtype=bool)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for cc in c.conditions:
                lhs = np.broadcast_to(np.asarray(cc.lhs(*args), dtype=float), (size,))
                rhs = np.broadcast_to(np.asarray(cc.rhs(*args), dtype=float), (size,))
                m = cc.sign * (rhs - lhs)
                ok &= (m > 0) if cc.strict else (m >= 0)
                if not ok.any():
                    return False
        return True

    rhos = np.logspace(-12, 12, 97)
    good = [r for r in rhos if feasible(float(r))]
    if not good:
        return None
    hi = float(good[0])
    i = int(np.searchsorted(rhos, hi))
    if i == 0:
        return hi
    lo = float(rhos[i - 1])
    while hi - lo > 1e-9 * hi:
        mid = math.sqrt(lo * hi)
        if mid in (lo, hi):
            break
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return hi


def empty_when(thm: Theorem, free: list[sp.Symbol]) -> list[Finding]:
    """Conditions free of the ``free`` symbols: the whole set is empty exactly when one fails."""
    out = []
    names = {f.name for f in free}
    for cond in thm.conditions:
        g, _ = _margin(thm, cond.rel)
        syms = {s.name for s in g.free_symbols}
        if not syms or syms & names:
            continue
        neg = sp.Not(cond.rel)
        free_txt = ", ".join(sorted(names))
        out.append(Finding(f"{thm.id}:empty:{cond.name}",
                           f"the conditions are empty, whatever {free_txt}, when {sp.sstr(neg)} "
                           f"(condition {cond.name!r} involves none of them)", neg,
                           cond.source, "empty", conditions=(cond.name,),
                           free=tuple(sorted(names))))
    return out


_CACHE: dict[int, tuple[Theorem, list[Finding]]] = {}


def findings(thm: Theorem) -> list[Finding]:
    """Computed findings for ``thm``: forced ratio ranges of discovered ratios, and the input
    regions where the condition set is empty whatever the step sizes (cached per theorem)."""
    if id(thm) in _CACHE and _CACHE[id(thm)][0] is thm:
        return _CACHE[id(thm)][1]
    out = _findings(thm)
    _CACHE[id(thm)] = (thm, out)
    return out


def _findings(thm: Theorem) -> list[Finding]:
    out: list[Finding] = []
    steps: set[sp.Symbol] = set()
    for a, b in ratio_candidates(thm):
        steps |= thm.expand(a).free_symbols | thm.expand(b).free_symbols
        f = ratio_bound(thm, b, a)
        if f is not None and f.detail.startswith("<"):
            f = ratio_bound(thm, a, b) or f
        if f is not None:
            out.append(f)
    if steps:
        out += empty_when(thm, sorted(steps, key=lambda s: s.name))
    return out


# ---------------------------------------------------------------------------------------------
_OPS = {">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b}
_SHOWN_OPS = {">": ">", ">=": "≥", "<": "<", "<=": "≤"}


@dataclass(frozen=True)
class Explanation:
    """A finding the given values violate, with the numbers that show it."""

    finding: Finding
    text: str
    actual: float | None = None
    required: float | None = None

    def as_json(self) -> dict:
        return {**self.finding.as_json(), "explanation": self.text, "actual": self.actual,
                "required": self.required}


def _number(e: sp.Expr) -> str:
    value = exact.to_float(e)
    return exact.exact_text(e) if e.is_Rational and len(sp.sstr(e)) <= 12 else f"{value:.6g}"


def explain(thm: Theorem, values: Mapping[str, Fraction],
            failing: list[str] | None = None) -> list[Explanation]:
    """The findings of ``thm`` that the values violate (``failing``: the conditions that fail
    there, for the "empty whatever the step sizes" findings), each with a sentence for people:
    a forced ratio range the given ratio lies outside of, or a condition the step sizes
    cannot repair."""
    out: list[Explanation] = []
    for f in findings(thm):
        if f.kind == "ratio" and f.ratio is not None and isinstance(f.value, sp.Expr):
            num, den = (sp.Symbol(n) for n in f.ratio)
            num_e, den_e = (thm.expand(thm.notation.spec(x.name).symbol) for x in (num, den))
            try:
                actual = exact.evaluate(num_e / den_e, values)
                required = exact.evaluate(thm.expand(f.value), values)
            except (KeyError, ValueError, exact.Undecidable):
                continue
            if not (actual.is_number and required.is_number) or \
                    _OPS[f.op](exact.to_float(actual), exact.to_float(required)):
                continue
            ratio = f"{pretty(thm.notation.spec(num.name).symbol)}/" \
                    f"{pretty(thm.notation.spec(den.name).symbol)}"
            where = "whatever the step sizes" if f.everywhere else "for small step sizes"
            op = _SHOWN_OPS[f.op]
            text = (f"{ratio} = {_number(actual)} here, but {', '.join(f.conditions)} forces "
                    f"{ratio} {op} {pretty(f.value)} = {_number(required)} {where} "
                    f"[{f.source}]: no step sizes with this ratio satisfy the conditions; "
                    f"change the ratio, not only the size of the steps")
            out.append(Explanation(f, text, exact.to_float(actual), exact.to_float(required)))
        elif f.kind == "empty" and failing is not None and set(f.conditions) & set(failing):
            text = (f"{', '.join(f.conditions)} fails and involves no step size: no choice of "
                    f"the step sizes makes these values feasible [{f.source}]")
            out.append(Explanation(f, text))
    return out
