"""Complexity derivation from an encoded statement and its corollary schedule.

Given a theorem's bound (named terms), its schedule (step sizes as functions of T, ε, …) and its
per-run costs (iterations = T, communications = pT, …), :func:`derive` solves "bound ≤ ε" for T
term by term:

* a contraction term ``c·r^T`` needs ``T ≥ ln(k c/ε)/(1 − r)`` (since −ln r ≥ 1 − r),
* a sublinear term ``c·T^(−a)`` needs ``T ≥ (k c/ε)^(1/a)``,
* a term free of T is a floor that the schedule must keep ≤ ε/k (checked, not assumed),

with k the number of terms. The costs at that T are the derived complexities; their big-O form
drops numeric constants. Agreement with the paper's claimed order is decided numerically: the
ratio derived/claimed must stay within a factor :data:`AGREE_SPREAD` over a grid spanning many
orders of magnitude of every symbol (respecting the theorem's ``regime`` relations), while the
claimed order itself varies by far more.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from sympy.core.parameters import global_parameters

from .exprtree import as_basic
from .minmax import minmax as _minmax
from .minmax import remember as _remember
from .model import Theorem

AGREE_SPREAD = 100.0
TIES = 1e-9  # ratios this close (relative) are equal in exact arithmetic, for naming a point


@dataclass
class CostOrder:
    cost: str
    derived: sp.Expr | None
    derived_order: sp.Expr | None
    claimed: sp.Expr | None
    verdict: str  # agree | disagree | no claim | not derived
    spread: float | None = None
    detail: str = ""

    def as_json(self) -> dict:
        return {"cost": self.cost,
                "derived": None if self.derived is None else sp.sstr(self.derived),
                "derived_order": None if self.derived_order is None else sp.sstr(self.derived_order),
                "claimed": None if self.claimed is None else sp.sstr(self.claimed),
                "verdict": self.verdict, "ratio_spread": self.spread, "detail": self.detail}


@dataclass
class Regime:
    name: str
    source: str
    note: str
    rows: list[CostOrder]


@dataclass
class ScheduleCheck:
    condition: str
    source: str
    verdict: str  # always | never | partial | threshold
    detail: str

    def as_json(self) -> dict:
        return {"condition": self.condition, "source": self.source, "verdict": self.verdict,
                "detail": self.detail}


@dataclass
class ComplexityReport:
    theorem: str
    T_eps: sp.Expr | None
    floors: list[str]
    regimes: list[Regime]
    schedule: list[ScheduleCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"theorem": self.theorem,
                "T_eps": None if self.T_eps is None else sp.sstr(self.T_eps),
                "floors": self.floors,
                "regimes": [{"name": r.name, "source": r.source, "note": r.note,
                             "orders": [row.as_json() for row in r.rows]} for r in self.regimes],
                "schedule_vs_conditions": [s.as_json() for s in self.schedule],
                "notes": self.notes}


# ---- substitution with memory -----------------------------------------------------------------
# sympy evaluates a Max/Min each time it is built (pairwise comparisons of its arguments, with
# factor_terms on their differences): most of a derivation's time. A derivation substitutes the
# same schedule, T_ε and specialization values into the same subexpressions (a T_ε shared by
# every cost, a condition re-checked per specialization), so the substitutions below keep each
# rebuilt subexpression by content: the expression, the rule and the evaluation flag (results
# are pure functions of these; nothing is kept across processes).
_RULE_IDS: dict[tuple, int] = {}
_REPLACED: dict[tuple[sp.Basic, int], tuple[sp.Basic, bool]] = {}


def _rule_id(rule: tuple) -> int:
    """A small key for a substitution rule (its pairs, each value with its type: Python 0 and
    sympy's 0 are equal) and the evaluation flag."""
    key = (tuple((k, type(v), v) for k, v in rule), bool(global_parameters.evaluate))
    found = _RULE_IDS.get(key)
    if found is None:
        found = _RULE_IDS[key] = len(_RULE_IDS)
    return found


def _build(node: sp.Basic, args: list) -> sp.Basic:
    """``node.func(*args)``, a Max/Min through :func:`_minmax`."""
    if node.func is sp.Max or node.func is sp.Min:
        return _minmax(node.func, args)
    return node.func(*args)


def _replace(expr: sp.Basic, rule: dict) -> sp.Basic:
    """``expr.xreplace(rule)`` (same result), with rebuilt subexpressions remembered."""
    if not rule:
        return expr
    return _replace_node(expr, rule, _rule_id(tuple(rule.items())))[0]


def _replace_node(node: sp.Basic, rule: dict, rule_id: int) -> tuple[sp.Basic, bool]:
    """sympy's ``Basic._xreplace``: (the node with ``rule`` applied, whether it changed)."""
    if node in rule:
        return rule[node], True
    if not node.args:
        return node, False
    key = (node, rule_id)
    found = _REPLACED.get(key)
    if found is not None:
        return found
    args, changed = [], False
    for arg in node.args:
        if isinstance(arg, sp.Basic):
            arg, arg_changed = _replace_node(arg, rule, rule_id)
            changed |= arg_changed
        args.append(arg)
    out = (_build(node, args), True) if changed else (node, False)
    _remember(_REPLACED, key, out)
    return out


def _expand(thm: Theorem, expr: sp.Basic) -> sp.Basic:
    """``thm.expand(expr)`` (derived quantities substituted one by one, last first)."""
    for sym, value in reversed(list(thm.derived.items())):
        expr = _replace(expr, {sym: value})
    return expr


_SCHEDULED: dict[tuple, sp.Basic] = {}


def apply_schedule(thm: Theorem, expr: sp.Basic) -> sp.Basic:
    """Substitute derived quantities and the schedule (to a fixed point) into ``expr``
    (remembered by content: the expression, the derived quantities and the schedule)."""
    key = (expr, type(expr), *((k, type(v), v) for k, v in thm.derived.items()), None,
           *((k, type(v), v) for k, v in thm.schedule.items()))
    found = _SCHEDULED.get(key)
    if found is not None:
        return found
    out = _expand(thm, expr)
    sched = {s: _expand(thm, v) for s, v in thm.schedule.items()}
    for _ in range(8):
        new = _expand(thm, _replace(out, sched))
        if new == out:
            break
        out = new
    _remember(_SCHEDULED, key, out)
    return out


@functools.lru_cache(maxsize=4096, typed=True)
def _solve_term(term: sp.Expr, T: sp.Symbol, eps: sp.Symbol, k: int) -> sp.Expr | None:
    """T needed for ``term ≤ ε/k`` (None if the term's T-dependence is not recognised; kept
    by content: a theorem and its corrected variant share most terms)."""
    term = sp.powsimp(sp.expand_power_base(term, force=True), force=True)
    coeff, dep = term.as_independent(T, as_Add=False)
    if dep == 1:
        return None
    if isinstance(dep, sp.Pow) and not dep.base.has(T):
        rate_exp = dep.exp
        a, rest = rate_exp.as_independent(T, as_Add=False)
        if rest == T:
            r = dep.base ** a
            return sp.log(k * coeff / eps) / (1 - r)
    if isinstance(dep, sp.Pow) and dep.base == T and dep.exp.is_negative:
        return (k * coeff / eps) ** (-1 / dep.exp)
    if dep == T:  # grows with T: cannot be made small
        return None
    return None


_LAMBDAS: dict[tuple, Callable] = {}


def _numeric(syms: list[sp.Symbol], expr: sp.Basic) -> Callable:
    """``sp.lambdify(syms, expr, "numpy")``, built once per symbol list and expression (the
    same regime relations and orders are evaluated again and again), without printing the
    expression into the function's docstring (a good part of lambdify's time)."""
    key = (tuple(syms), expr)
    fn = _LAMBDAS.get(key)
    if fn is None:
        if len(_LAMBDAS) > 4096:
            _LAMBDAS.clear()
        fn = _LAMBDAS[key] = sp.lambdify(syms, expr, "numpy", docstring_limit=0)
    return fn


def _evaluate(syms: list[sp.Symbol], expr: sp.Basic, cols: list[np.ndarray]) -> np.ndarray:
    """``expr`` at the grid points ``cols`` (one float per point; warnings silenced)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = np.asarray(_numeric(syms, expr)(*cols), dtype=float)
    return np.broadcast_to(values, cols[0].shape) if cols else values


@dataclass(frozen=True)
class _Grid:
    """The grid points a theorem's regime admits, in grid order: one column per symbol, and
    with a kept axis (T) the setting of the other symbols each point belongs to."""
    cols: list[np.ndarray]
    settings: np.ndarray | None


_GRIDS: dict[tuple, tuple[Theorem, _Grid]] = {}


def _admitted(thm: Theorem, syms: list[sp.Symbol], grids: list[list[float]],
              keep: int | None = None, limit: int | None = None) -> _Grid:
    """The points of the :func:`_product` of ``grids`` (with ``keep``), thinned to ``limit``
    random points if larger, that the theorem's regime admits. Kept per theorem object,
    symbols and grids (dominates, compare and the schedule checks ask for the same grids many
    times); only admitted points are evaluated later."""
    key = (id(thm), tuple(syms), tuple(tuple(g) for g in grids), keep, limit)
    hit = _GRIDS.get(key)
    if hit is not None and hit[0] is thm:
        return hit[1]
    cols = _columns(grids, keep=keep)
    if limit is not None and cols[0].size > limit:
        pick = np.random.default_rng(0).choice(cols[0].size, limit, replace=False)
        cols = [c[pick] for c in cols]
    index = np.flatnonzero(_regime_ok(thm, syms, cols))
    settings = None
    if keep is not None:  # which setting of the other axes: all but the kept axis' digit
        sizes = [len(g) for g in grids]
        inner = int(np.prod(sizes[keep + 1:], dtype=float))
        if cols[0].size == int(np.prod(sizes, dtype=float)):  # the full product
            settings = index // (sizes[keep] * inner) * inner + index % inner
        else:  # sampled settings, each crossed with the kept axis' grid
            settings = index // sizes[keep]
    grid = _Grid([c[index] for c in cols], settings)
    if len(_GRIDS) > 32:
        _GRIDS.pop(next(iter(_GRIDS)))
    _GRIDS[key] = (thm, grid)
    return grid


_DOMINATES: dict[tuple[int, sp.Expr, sp.Expr], tuple[Theorem, bool]] = {}


def dominates(thm: Theorem, a: sp.Expr, b: sp.Expr) -> bool:
    """a ≥ b at every grid point admitted by the theorem's regime relations (numeric; kept per
    theorem object and pair: big_o asks the same pairs again and again)."""
    key = (id(thm), a, b)
    hit = _DOMINATES.get(key)
    if hit is not None and hit[0] is thm:
        return hit[1]
    out = _dominates(thm, a, b)
    if len(_DOMINATES) > 20_000:
        _DOMINATES.clear()
    _DOMINATES[key] = (thm, out)
    return out


def _dominates(thm: Theorem, a: sp.Expr, b: sp.Expr) -> bool:
    syms = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    if not syms:
        return bool(a >= b)
    cols = _admitted(thm, syms, [_grid_values(s, thm) for s in syms]).cols
    d = _evaluate(syms, a - b, cols)
    return bool(np.all(d >= -1e-12 * (1 + np.abs(d))))


def big_o(expr: sp.Expr, fixed: dict[sp.Symbol, sp.Expr] | None = None,
          thm: Theorem | None = None) -> sp.Expr:
    """Drop numeric constants: 8*max(2a, b)*log(2V/ε) → max(a, b)*log(V/ε); with ``thm``,
    also drop Max/Min arguments its regime relations make dominated (e.g. μ ≤ ℓ̂)."""
    return _order(_replace(expr, fixed or {}), thm)


_ORDERS: dict[tuple[int, sp.Basic, bool], tuple[Theorem | None, sp.Expr]] = {}


def _order(e: sp.Expr, thm: Theorem | None) -> sp.Expr:
    """:func:`big_o` of a subexpression, kept per theorem object and subexpression (the costs
    of a derivation share their T_ε, each Max/Min rebuilt from its orders only once)."""
    key = (id(thm), e, bool(global_parameters.evaluate))
    found = _ORDERS.get(key)
    if found is not None and found[0] is thm:
        return found[1]
    out = _order_of(e, thm)
    _remember(_ORDERS, key, (thm, out))
    return out


def _order_of(e: sp.Expr, thm: Theorem | None) -> sp.Expr:
    """One step of :func:`big_o` (its subexpressions through :func:`_order`)."""
    if e.is_Number:
        return sp.Integer(1)
    if isinstance(e, sp.Mul):  # drop constant factors, keep the sign
        c = sp.Mul(*[a for a in e.args if a.is_Number])
        return sp.sign(c) * sp.Mul(*[_order(a, thm) for a in e.args if not a.is_Number])
    if isinstance(e, sp.Pow):
        if e.exp.is_Number and isinstance(e.base, (sp.Min, sp.Max)) and e.exp < 0:
            flip = sp.Max if isinstance(e.base, sp.Min) else sp.Min
            return _order(flip(*[a ** e.exp for a in e.base.args], evaluate=False), thm)
        if e.exp.is_Number:
            return _order(e.base, thm) ** e.exp
        return e
    if isinstance(e, sp.log):
        arg = e.args[0]
        c, rest = arg.as_independent(*arg.free_symbols, as_Add=False)
        return sp.log(_order(rest, thm)) if rest != 1 else sp.Integer(1)
    if isinstance(e, (sp.Max, sp.Min)):
        args = [_order(a, thm) for a in e.args]
        non_const = [a for a in args if not a.is_Number]
        if len(non_const) < len(args) and non_const:
            args = non_const + [sp.Integer(1)]
        if thm is not None:
            keep = []
            for i, a in enumerate(args):
                beaten = False
                for j, b in enumerate(args):
                    if j == i or b == a:
                        continue
                    hi, lo = (b, a) if isinstance(e, sp.Max) else (a, b)
                    if dominates(thm, hi, lo) and (j < i or not dominates(thm, lo, hi)):
                        beaten = True
                        break
                if not beaten:
                    keep.append(a)
            args = _dedupe(keep) or args
        return _minmax(type(e), args)
    if isinstance(e, sp.Add):
        terms = [_order(a, thm) for a in e.args if not a.is_Number]
        return sp.Add(*terms) if terms else sp.Integer(1)
    return e


def _dedupe(xs: list) -> list:
    out: list = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def _grid_values(sym: sp.Symbol, thm: Theorem) -> list[float]:
    if thm.accuracy is not None and sym == thm.accuracy:
        return [1e-10, 1e-7, 1e-4, 1e-2]
    if sym.name in thm.notation:
        dom = thm.notation.spec(sym.name).domain
        if dom.integer:
            return [1.0, 10.0, 100.0, 1e4]
        if dom.hi <= 1:
            return [1e-4, 1e-2, 0.1, 0.5, 1.0]
        if dom.lo == 0 and not dom.lo_open:
            return [0.0, 1e-3, 1.0, 1e3]
    return [1e-3, 1.0, 1e3]


def _product(grids: list[list[float]], cap: int = 250_000, keep: int | None = None,
             sample: int = 200_000) -> np.ndarray:
    """Grid points as rows (:func:`_columns` stacked)."""
    if not grids:
        return np.zeros((1, 0))
    return np.stack(_columns(grids, cap, keep, sample), axis=1)


def _columns(grids: list[list[float]], cap: int = 250_000, keep: int | None = None,
             sample: int = 200_000) -> list[np.ndarray]:
    """Grid points, one column per axis: the full product (itertools order) up to ``cap``
    points, else a seeded random sample of ``sample`` points drawn without materialising the
    product; with ``keep``, each sampled setting of the other axes is crossed with that axis'
    full grid (so per-setting scans in T still work). Theorems with many symbols stay
    tractable."""
    sizes = [len(g) for g in grids]
    total = int(np.prod(sizes, dtype=float))
    arrs = [np.asarray(g, dtype=float) for g in grids]
    if total <= cap:  # itertools.product order: the last axis varies fastest
        cols, inner = [], total
        for a in arrs:
            inner //= a.size
            cols.append(np.tile(np.repeat(a, inner), total // (a.size * inner)))
        return cols
    rng = np.random.default_rng(0)
    m = sample if keep is None else max(1, sample // sizes[keep])
    cols = []
    for j, a in enumerate(arrs):
        if j == keep:
            cols.append(np.tile(a, m))
        else:
            pick = a[rng.integers(0, a.size, m)]
            cols.append(pick if keep is None else np.repeat(pick, sizes[keep]))
    return cols


def _regime_ok(thm: Theorem, names: list[sp.Symbol], cols: list[np.ndarray]) -> np.ndarray:
    ok = np.ones(cols[0].shape, dtype=bool) if cols else np.ones(1, dtype=bool)
    for rel in thm.regime:
        if not rel.free_symbols <= set(names):
            continue
        d = np.broadcast_to(_numeric(names, rel.lhs - rel.rhs)(*cols), ok.shape)
        ok &= (d <= 0) if isinstance(rel, (sp.Le, sp.Lt)) else (d >= 0)
    return ok


def compare(thm: Theorem, derived: sp.Expr, claimed: sp.Expr) -> tuple[str, float | None, str]:
    """Decide agree/disagree of two orders numerically (ratio spread over a wide grid)."""
    fixed = dict(thm.fixed_in_orders)
    d, c = _replace(derived, fixed), _replace(claimed, fixed)
    syms = sorted((d.free_symbols | c.free_symbols), key=lambda s: s.name)
    if not syms:
        return "agree", 1.0, "both constant"
    cols = _admitted(thm, syms, [_grid_values(s, thm) for s in syms], limit=200_000).cols
    vd, vc = _evaluate(syms, d, cols), _evaluate(syms, c, cols)
    good = np.isfinite(vd) & np.isfinite(vc) & (vd > 0) & (vc > 0)
    if good.sum() < 2:
        return "inconclusive", None, "too few admissible grid points"
    ratio = vd[good] / vc[good]
    spread = float(ratio.max() / ratio.min())
    claimed_range = float(vc[good].max() / vc[good].min())
    if spread <= AGREE_SPREAD:
        return "agree", spread, (f"derived/claimed within a factor {spread:.3g} while the "
                                 f"claimed order varies by {claimed_range:.3g}")
    # the first grid point within TIES of the extreme: orders that tie in exact arithmetic
    # (a ratio that does not depend on N) name the same point whatever the rounding
    i_max = int(np.flatnonzero(ratio >= ratio.max() * (1 - TIES))[0])
    i_min = int(np.flatnonzero(ratio <= ratio.min() * (1 + TIES))[0])
    where = lambda i: ", ".join(f"{s.name}={cols[j][good][i]:.3g}" for j, s in enumerate(syms))  # noqa: E731
    return "disagree", spread, (f"derived/claimed ranges from {ratio.min():.3g} ({where(i_min)}) "
                                f"to {ratio.max():.3g} ({where(i_max)})")


def schedule_vs_conditions(thm: Theorem, subs: dict | None = None) -> list[ScheduleCheck]:
    """Whether the schedule satisfies each condition: symbolically, else on a wide grid
    (with ``subs``: after a specialization's substitution, e.g. τ = T/n)."""
    out = []
    T = thm.horizon
    touched = set(thm.schedule) | set(thm.derived)
    for cond in thm.conditions:
        if not (cond.rel.free_symbols & touched):
            out.append(ScheduleCheck(cond.name, cond.source, "hypothesis",
                                     "involves neither the schedule nor derived quantities: "
                                     "a hypothesis on the inputs"))
            continue
        rel = apply_schedule(thm, cond.rel)
        if subs:
            rel = _subs(rel, subs)
        if rel is sp.true:
            out.append(ScheduleCheck(cond.name, cond.source, "always", "holds identically"))
            continue
        if rel is sp.false:
            out.append(ScheduleCheck(cond.name, cond.source, "never", "fails identically"))
            continue
        syms = sorted(rel.free_symbols, key=lambda s: s.name)
        if not syms:
            out.append(ScheduleCheck(cond.name, cond.source, "always" if bool(rel) else "never", ""))
            continue
        # T reaches 1e16 so thresholds polynomial in other symbols (T ≥ N³ at N = 1e4) show
        grids = [(_grid_values(s, thm) if s != T else
                  [1.0, 10.0, 1e2, 1e3, 1e4, 1e6, 1e8, 1e12, 1e16, 1e24, 1e32, 1e48, 1e64])
                 for s in syms]  # … and far beyond: thresholds ∝ κ³β_G⁴n²… at grid extremes
        grid = _admitted(thm, syms, grids, keep=syms.index(T) if T in syms else None)
        cols = grid.cols
        lhs, rhs = _evaluate(syms, rel.lhs, cols), _evaluate(syms, rel.rhs, cols)
        small, big = (lhs, rhs) if isinstance(rel, (sp.Le, sp.Lt)) else (rhs, lhs)
        tol = 1e-12 * np.where(np.isfinite(big), np.abs(big), 0)
        holds = (small < big) if isinstance(rel, (sp.Lt, sp.Gt)) else (small <= big + tol)
        holds &= ~np.isnan(small) & ~np.isnan(big)
        n = holds.size
        if holds.all():
            out.append(ScheduleCheck(cond.name, cond.source, "always", f"holds at all {n} grid points"))
        elif not holds.any():
            out.append(ScheduleCheck(cond.name, cond.source, "never", f"fails at all {n} grid points"))
        else:
            bad = int(np.flatnonzero(~holds)[0])
            example = ", ".join(f"{s.name}={cols[j][bad]:.3g}" for j, s in enumerate(syms))
            detail = f"holds at {int(holds.sum())} of {n} grid points; fails e.g. at {example}"
            verdict = "partial"
            if T is not None and T in syms:
                thr = _threshold(grid.settings, cols[syms.index(T)], holds)
                if thr is not None:
                    verdict = "threshold"
                    detail += f"; at every grid point it holds for all T >= {thr:.3g} on the grid"
            out.append(ScheduleCheck(cond.name, cond.source, verdict, detail))
    return out


def _threshold(settings: np.ndarray, t_values: np.ndarray, holds: np.ndarray) -> float | None:
    """If, for every setting of the other symbols, holds(T) is monotone (false→true) in T
    and true at the largest T: the largest T at which some setting starts to hold."""
    order = np.lexsort([t_values, settings])  # by setting, then T (stable)
    held, at, setting = holds[order], t_values[order], settings[order]
    start = np.append(True, setting[1:] != setting[:-1])
    end = np.append(start[1:], True)
    if not held[end].all() or np.any(held[:-1] & ~held[1:] & ~start[1:]):
        return None
    first = held & (start | np.append(True, ~held[:-1]))  # each setting's first T that holds
    return max(0.0, float(at[first].max())) if first.any() else 0.0


def derive(thm: Theorem) -> ComplexityReport:
    """Derived vs claimed orders for each cost, in the general case and each specialization."""
    notes: list[str] = []
    T, eps = thm.horizon, thm.accuracy
    T_eps = None
    floors: list[str] = []
    terms: list[tuple[str, sp.Expr]] = []
    if thm.bound and T is not None and eps is not None and thm.costs:
        terms = [(t.name, apply_schedule(thm, t.expr)) for t in thm.bound]
        T_eps, floors, solve_notes = _solve_T(thm, terms)
        notes += solve_notes
    regimes = []
    checks = schedule_vs_conditions(thm) if thm.schedule else []
    base_subs: dict = {}
    regime_list = [("general", thm.claimed_source, "", base_subs, thm.claimed)]
    for s in thm.specializations:
        regime_list.append((s.name, s.source, s.note, s.subs, s.claimed))
    for name, source, note, subs, claimed in regime_list:
        # a specialization that sets a quantity as a function of T (e.g. τ = T/n) is a schedule
        # choice: it is applied before solving for T, and the schedule is re-checked under it
        pre = T is not None and any(as_basic(v).has(T) for v in subs.values())
        T_s = T_eps
        if pre and terms:
            T_s, _, solve_notes = _solve_T(thm, [(n_, _subs(e, subs)) for n_, e in terms])
            notes += [f"[{name}] {m}" for m in solve_notes]
            checks += [ScheduleCheck(f"{c.condition} [{name}]", c.source, c.verdict, c.detail)
                       for c in schedule_vs_conditions(thm, subs)]
        rows = []
        for cost, cexpr in thm.costs.items():
            derived = None
            if T_s is not None and pre:
                derived = _replace(_subs(apply_schedule(thm, cexpr), subs), {T: T_s})
                derived = apply_schedule(thm, derived)
            elif T_s is not None:
                # schedule first, then T: a cost may use scheduled symbols (T/Q, Q = Q(T_0))
                derived = apply_schedule(thm, _replace(apply_schedule(thm, cexpr), {T: T_eps}))
                derived = _subs(derived, subs)
            cl = claimed.get(cost)
            if derived is None:
                rows.append(CostOrder(cost, None, None, cl, "not derived"))
                continue
            order = big_o(derived, thm.fixed_in_orders, thm)
            if cl is None:
                rows.append(CostOrder(cost, derived, order, None, "no claim"))
                continue
            # claims may be written in derived quantities (κ = L_f/μ): compare expanded forms
            verdict, spread, detail = compare(thm, derived, thm.expand(cl))
            rows.append(CostOrder(cost, derived, order, cl, verdict, spread, detail))
        regimes.append(Regime(name, source, note, rows))
    return ComplexityReport(thm.id, T_eps, floors, regimes, checks, notes)


def accuracy_target(thm: Theorem) -> sp.Expr:
    """What the bound must reach: ``thm.accuracy`` (ε), or a theorem's ``accuracy_target``
    attribute when its bound is on a square (E‖∇Φ‖² ≤ ε² for E‖∇Φ‖ ≤ ε)."""
    return thm.accuracy_target if thm.accuracy_target is not None else thm.accuracy


@functools.lru_cache(maxsize=4096, typed=True)
def _monomials(e: sp.Expr, T: sp.Symbol) -> tuple[sp.Expr, ...] | None:
    """Positive summands c·T^(−a) of an expanded term (negative ones only loosen the bound and
    are dropped; a T-free or growing summand means the split does not apply: None; kept by
    content)."""
    groups: dict[sp.Expr, sp.Expr] = {}
    for m in sp.Add.make_args(sp.expand(e)):  # collect by power of T, so that cancellations
        c, dep = sp.factor_terms(m).as_independent(T, as_Add=False)  # cancellations show
        groups[dep] = groups.get(dep, sp.Integer(0)) + c
    parts = []
    for dep, c in groups.items():  # keep the positive part of each coefficient's numerator
        num, den = sp.fraction(sp.cancel(sp.together(c)))  # (all symbols are ≥ 0 here)
        pos = [m for m in sp.Add.make_args(sp.expand(num)) if not m.could_extract_minus_sign()]
        if den.could_extract_minus_sign():
            return None
        if pos and num != 0:
            parts.append(sp.Add(*pos) / den * dep)
    if not parts or any(not m.has(T) for m in parts):
        return None
    return tuple(parts)


def _minmax_upper(e: sp.Expr, T: sp.Symbol) -> sp.Expr:
    """An upper bound of a positive expression without Min/Max: Min(a, b) ≤ its branch decaying
    fastest in T, Max(a, b) ≤ a + b; under a power p < 0 the roles swap (Min(a, b)^p =
    Max(a^p, b^p)). A Min/Max inside the base of another negative power is left as is."""
    if isinstance(e, sp.Pow) and isinstance(e.base, (sp.Min, sp.Max)) and e.exp.is_number:
        kind = type(e.base) if e.exp > 0 else (sp.Max if isinstance(e.base, sp.Min) else sp.Min)
        return _pick_branch(kind, [_minmax_upper(a**e.exp, T) for a in e.base.args], T)
    if isinstance(e, (sp.Min, sp.Max)):
        return _pick_branch(type(e), [_minmax_upper(a, T) for a in e.args], T)
    if isinstance(e, sp.Pow) and not (e.exp.is_number and e.exp > 0):
        return e
    if isinstance(e, (sp.Add, sp.Mul, sp.Pow)):
        return e.func(*[_minmax_upper(a, T) for a in e.args])
    return e


def _pick_branch(kind: type, args: list[sp.Expr], T: sp.Symbol) -> sp.Expr:
    if kind is sp.Max:
        return sp.Add(*args)

    def rate(a: sp.Expr) -> float:
        dep = sp.powsimp(sp.expand_power_base(a, force=True), force=True).as_independent(
            T, as_Add=False)[1]
        if dep == 1:
            return 0.0
        if dep == T:
            return 1.0
        if isinstance(dep, sp.Pow) and dep.base == T and dep.exp.is_number:
            return float(dep.exp)
        return float("inf")

    return min(args, key=rate)


def _solve_T(thm: Theorem, terms: list[tuple[str, sp.Expr]]
             ) -> tuple[sp.Expr | None, list[str], list[str]]:
    """T_eps (None if some term is not recognised), floor-term names and notes: each of the k
    terms must be ≤ target/k; a term that is a sum of powers of T (e.g. (τ−1)/(τ²T) with
    τ = T/n) is split into its m positive monomials, each ≤ target/(k·m)."""
    T, target = thm.horizon, accuracy_target(thm)
    k = len(terms)
    needs: list[sp.Expr] | None = []
    floors: list[str] = []
    notes: list[str] = []
    for name, e in terms:
        if not e.has(T):
            floors.append(name)
            continue
        sol = _solve_term(e, T, target, k)
        if sol is None:
            parts = _monomials(e, T)
            sols = [_solve_term(m, T, target, k * len(parts)) for m in parts] if parts else [None]
            if not all(s is not None for s in sols) and e.has(sp.Min, sp.Max):
                ub = _minmax_upper(e, T)  # sound: a T for an upper bound of the term suffices
                parts = _monomials(ub, T) or [ub]
                sols = [_solve_term(m, T, target, k * len(parts)) for m in parts]
                if all(s is not None for s in sols):
                    notes.append(f"term {name!r}: Min/Max bounded above (Min by its fastest-"
                                 f"decaying branch in T, Max by the sum): {sp.sstr(ub)}")
            if all(s is not None for s in sols):
                needs.extend(sols)
                continue
            notes.append(f"term {name!r}: T-dependence not recognised; no symbolic T_eps")
            needs = None
            break
        needs.append(sol)
    if needs:
        needs = _dedupe(needs)
    # many requirements (a split sum of monomials): sympy's pairwise Max evaluation is very slow
    T_eps = (needs[0] if len(needs) == 1 else sp.Max(*needs, evaluate=len(needs) <= 3)) \
        if needs else None
    for name in floors:
        e = dict(terms)[name]
        verdict, spread, detail = _floor_check(thm, e, k)
        notes.append(f"floor term {name!r} = {sp.sstr(e)} under the schedule: {detail}")
    return T_eps, floors, notes


def _subs(expr: sp.Expr, subs: dict) -> sp.Expr:
    """Substitute, taking x → 0 as a limit from above (all quantities here are positive):
    c/x → ∞ and Min(a, ∞) = a, instead of sympy's complex infinity."""
    zero_keys = tuple(k for k, v in subs.items() if v == 0)
    if zero_keys not in _ZERO_MARKS:  # one positive stand-in per symbol sent to 0
        _ZERO_MARKS[zero_keys] = tuple(sp.Dummy(k.name, positive=True) for k in zero_keys)
    zeros = dict(zip(zero_keys, _ZERO_MARKS[zero_keys], strict=True))
    out = _replace(expr, {k: zeros.get(k, v) for k, v in subs.items()})
    if not zeros:
        return out
    marks = frozenset(zeros.values())
    return _rebuild(out, marks)


_ZERO_MARKS: dict[tuple[sp.Symbol, ...], tuple[sp.Dummy, ...]] = {}
_REBUILT: dict[tuple[sp.Basic, frozenset], sp.Basic] = {}


def _rebuild(e: sp.Basic, marks: frozenset) -> sp.Basic:
    """``e`` rebuilt bottom-up (every node re-evaluated) with the stand-ins ``marks`` set to 0:
    a negative power of 0 is ∞, as is any complex infinity that appears (remembered per
    subexpression, as in :func:`_replace`)."""
    if e in marks:
        return sp.Integer(0)
    if not e.args:
        return e
    key = (e, marks)
    found = _REBUILT.get(key)
    if found is not None:
        return found
    args = [_rebuild(a, marks) for a in e.args]
    if isinstance(e, sp.Pow) and args[0] == 0 and args[1].is_negative:
        out = sp.oo
    else:
        new = _build(e, args)
        out = sp.oo if new is sp.zoo else new
    _remember(_REBUILT, key, out)
    return out


def _floor_check(thm: Theorem, e: sp.Expr, k: int) -> tuple[str, float | None, str]:
    ratio = e / accuracy_target(thm)
    syms = sorted(ratio.free_symbols, key=lambda s: s.name)
    if not syms:
        v = float(ratio)
        return ("ok" if v <= 1 / k + 1e-12 else "too large"), v, f"floor/ε = {v:.3g}"
    v = _evaluate(syms, ratio, _admitted(thm, syms, [_grid_values(s, thm) for s in syms]).cols)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return "inconclusive", None, "no admissible grid point"
    mx = float(v.max())
    return ("ok" if mx <= 1 / k + 1e-12 else "too large", mx,
            f"max floor/ε on the grid = {mx:.3g} (needs <= 1/{k} for the split used)")


__all__ = ["derive", "big_o", "compare", "apply_schedule", "schedule_vs_conditions",
           "schedule_values", "ComplexityReport", "AGREE_SPREAD"]


_SCHEDULES: dict[tuple[str, int], tuple[list[str], list[str], object]] = {}


def schedule_values(thm: Theorem, values: dict[str, float]) -> dict[str, float]:
    """The theorem's schedule (e.g. Cor. 3.6's γ = 1/(2ℓ), p = √(γμ)) evaluated at ``values``,
    with derived quantities and earlier schedule entries substituted: symbol name → float.
    Compiled once per theorem; every free symbol of the schedule must be in ``values``."""
    key = (thm.id, id(thm))
    if key not in _SCHEDULES:
        exprs = {s.name: apply_schedule(thm, v) for s, v in thm.schedule.items()}
        free = sorted({f.name for e in exprs.values() for f in e.free_symbols})
        fn = sp.lambdify([sp.Symbol(n) for n in free],
                         [e.xreplace({f: sp.Symbol(f.name) for f in e.free_symbols})
                          for e in exprs.values()], modules="math")
        _SCHEDULES[key] = (free, list(exprs), fn)
    free, names, fn = _SCHEDULES[key]
    missing = [n for n in free if n not in values]
    if missing:
        raise KeyError(f"{thm.id}: the schedule needs {', '.join(missing)}")
    return dict(zip(names, (float(v) for v in fn(*(float(values[n]) for n in free))),
                    strict=True))
