"""The derivation's shortcuts (issue 16) against the plain forms they replace: substitutions that
remember rebuilt subexpressions against sympy's ``xreplace``, Max/Min with remembered pair
comparisons against sympy's constructor, the vectorized threshold scan against a per-setting
scan, the grid product against ``itertools.product``, and whole derivations with the memories
against derivations through plain sympy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp
from sympy.functions.elementary.miscellaneous import MinMaxBase

from fedbounds import complexity, minmax, registry

a, b, c, x, y = sp.symbols("a b c x y", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
# the derivations' memories in fedbounds.complexity, emptied for a derivation from scratch
COMPLEXITY_MEMORIES = ("_REPLACED", "_REBUILT", "_SCHEDULED", "_ORDERS", "_GRIDS", "_LAMBDAS",
                       "_DOMINATES")

EXPRESSIONS = [
    sp.Max(a / x, b * y**2, c / (x * y), evaluate=False),
    sp.Min(a, b / x) * sp.log(n / x) + sp.Max(x, y) ** -2,
    sp.Max(a * x**2, a * y**2, (x + y) ** 2 / n),
    sp.Le(sp.Max(x, a) / n, sp.Min(b, c * y)),
    x * sp.exp(-y * n) + sp.sqrt(x / a),
]
RULES = [
    {x: sp.Integer(2) * a, y: b},
    {y: sp.Integer(0)},
    {x: n / b, a: sp.Rational(1, 3)},
    {n: x * y},
]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_replace_matches_xreplace_also_when_remembered(expr: sp.Basic, rule: dict) -> None:
    try:
        expected = expr.xreplace(rule)
    except ValueError as error:  # e.g. a Max of zoo: the same refusal
        with pytest.raises(type(error)):
            complexity._replace(expr, rule)
        return
    first = complexity._replace(expr, rule)
    again = complexity._replace(expr, rule)  # from the memory this time
    for got in (first, again):
        assert got == expected
        assert sp.srepr(got) == sp.srepr(expected)


def test_rules_with_equal_values_of_different_types_are_kept_apart() -> None:
    assert 0 == sp.Integer(0) and hash(0) == hash(sp.Integer(0))  # why the type is in the key
    assert complexity._rule_id(((x, 0),)) != complexity._rule_id(((x, sp.Integer(0)),))


def test_subs_takes_zero_as_a_limit_from_above() -> None:
    assert complexity._subs(a / x + y, {x: 0}) == sp.oo
    assert complexity._subs(sp.Min(a, c / x), {x: 0}) == a
    assert complexity._subs(sp.Max(a, b * x), {x: 0, b: c}) == a
    # the same substitution again (remembered) gives the same result
    assert complexity._subs(sp.Min(a, c / x) * y, {x: 0}) == a * y


@pytest.mark.parametrize("theorem_id", ["proxskip.cor3.5", "fednorm.thm1"])
def test_apply_schedule_is_the_fixed_point_of_expand_and_the_schedule(theorem_id: str) -> None:
    thm = registry.get(theorem_id)
    sched = {s: thm.expand(v) for s, v in thm.schedule.items()}
    exprs = [t.expr for t in thm.bound] + [cond.rel for cond in thm.conditions]
    for expr in exprs:
        expected = thm.expand(expr)
        for _ in range(8):
            new = thm.expand(expected.xreplace(sched))
            if new == expected:
                break
            expected = new
        assert complexity.apply_schedule(thm, expr) == expected
        assert sp.sstr(complexity.apply_schedule(thm, expr)) == sp.sstr(expected)


def _threshold_by_setting(cols: list[np.ndarray], i_t: int, holds: np.ndarray) -> float | None:
    """The scan the threshold describes, setting by setting of the other symbols."""
    groups: dict[tuple, list[tuple[float, bool]]] = {}
    for k in range(holds.size):
        setting = tuple(float(col[k]) for j, col in enumerate(cols) if j != i_t)
        groups.setdefault(setting, []).append((float(cols[i_t][k]), bool(holds[k])))
    worst = 0.0
    for scan in groups.values():
        flags = [h for _, h in sorted(scan, key=lambda p: p[0])]
        if not flags[-1] or any(f and not g for f, g in zip(flags, flags[1:], strict=False)):
            return None
        worst = max(worst, min(t for t, h in scan if h))
    return worst


def test_threshold_matches_a_scan_per_setting() -> None:
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(300):
        n_sym = int(rng.integers(1, 4))
        i_t = int(rng.integers(0, n_sym))
        grids = [[float(v) for v in rng.choice([0.0, 1.0, 2.0, 5.0], 3, replace=False)]
                 for _ in range(n_sym)]
        grids[i_t] = [1.0, 10.0, 1e2, 1e3, 1e4]
        pts = np.array(list(itertools.product(*grids)))
        keep = rng.random(len(pts)) < 0.9
        cols = [pts[keep, j] for j in range(n_sym)]
        other = cols[(i_t + 1) % n_sym] if n_sym > 1 else np.zeros(cols[0].size)
        if rng.random() < 0.7:  # holds above a threshold that depends on the other symbols
            holds = cols[i_t] >= 10.0 ** rng.integers(0, 4) * (1 + other)
        else:
            holds = rng.random(cols[0].size) < 0.6
        if holds.size == 0:
            continue
        others = np.stack([col for j, col in enumerate(cols) if j != i_t] +
                          [np.zeros(cols[0].size)], axis=1)
        settings = np.unique(others, axis=0, return_inverse=True)[1].ravel()
        expected = _threshold_by_setting(cols, i_t, holds)
        assert complexity._threshold(settings, cols[i_t], holds) == expected
        found += expected is not None
    assert 20 < found < 300  # both outcomes were exercised


def test_admitted_grid_numbers_settings_of_the_other_axes() -> None:
    thm = registry.get("proxskip.cor3.6")
    syms = sp.symbols("p q r", positive=True)
    grids = [[1.0, 2.0, 3.0], [1.0, 10.0, 1e2, 1e3], [5.0, 6.0]]
    grid = complexity._admitted(thm, list(syms), grids, keep=1)
    others = np.stack([grid.cols[0], grid.cols[2]], axis=1)
    same_setting = (others[:, None, :] == others[None, :, :]).all(axis=2)
    assert np.array_equal(same_setting, grid.settings[:, None] == grid.settings[None, :])


MINMAX_CASES = [
    (sp.Max, [a, 2 * a, b]),
    (sp.Min, [x, x**2, 1 / x, sp.Integer(3)]),
    (sp.Max, [x, sp.Max(y, a), -sp.oo]),
    (sp.Max, [x, sp.oo]),
    (sp.Min, [sp.Integer(1), sp.Rational(1, 2)]),
    (sp.Max, [a / x, a / x + b, c * y, c * y**2, sp.Min(a, c)]),
    (sp.Min, [a * n, a * (n + 1), b]),
]


@pytest.mark.parametrize(("kind", "args"), MINMAX_CASES)
def test_minmax_is_sympys_max_and_min(kind: type, args: list) -> None:
    expected = kind(*args)
    for _ in range(2):  # the second time from remembered comparisons
        got = complexity._minmax(kind, args)
        assert got == expected
        assert sp.srepr(got) == sp.srepr(expected)


def test_minmax_matches_sympy_on_a_derivations_time_to_accuracy() -> None:
    t_eps = complexity.derive(registry.get("fedsgda.cor3.7")).T_eps
    maxes = [m for m in sp.preorder_traversal(t_eps) if isinstance(m, (sp.Max, sp.Min))]
    assert maxes
    for m in maxes:
        halved = [arg.xreplace({sym: sym / 2 for sym in arg.free_symbols}) for arg in m.args]
        assert complexity._minmax(m.func, halved) == m.func(*halved)


def test_ordering_flips_only_where_neither_side_dominates() -> None:
    """Both signs of x − y at the sample points: a and b unrelated, a/x and b·y, n and a (an
    integer against a real); never for a pair with an ordering (a < 2a, x < x + a, n ≤ n²)."""
    assert minmax.ordering_flips(a, b)
    assert minmax.ordering_flips(a / x, b * y)
    assert minmax.ordering_flips(n, a)
    for left, right in ((a, 2 * a), (x, x + a), (n, n**2), (sp.Max(a, b), a), (a, a)):
        assert not minmax.ordering_flips(left, right)
        assert not minmax.ordering_flips(right, left)


def test_a_flipping_pair_is_one_sympy_does_not_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pair of Max/Min arguments that a derivation settles by its sample points, asked of
    sympy: not connected (sympy decides no comparison of the two)."""
    flipping: list[tuple[sp.Basic, sp.Basic]] = []
    original = minmax.ordering_flips

    def noted(left: sp.Basic, right: sp.Basic) -> bool:
        flips = original(left, right)
        if flips:
            flipping.append((left, right))
        return flips

    monkeypatch.setattr(minmax, "ordering_flips", noted)
    for memo in COMPLEXITY_MEMORIES:
        monkeypatch.setattr(complexity, memo, {})
    for memo in ("_CONNECTED", "_SAMPLED"):
        monkeypatch.setattr(minmax, memo, {})
    complexity.derive(registry.get("fedsgda.cor3.7"))
    assert len(flipping) >= 5
    for left, right in flipping[:60]:
        assert sp.Max._is_connected(left, right) is False, (left, right)
        assert sp.Min._is_connected(left, right) is False, (left, right)


def test_product_lists_points_in_itertools_order() -> None:
    grids = [[1.0, 2.0, 3.0], [0.0, 1e-3], [5.0, 6.0, 7.0, 8.0]]
    expected = np.array(list(itertools.product(*grids)))
    assert np.array_equal(complexity._product(grids), expected)


def _plain_replace(expr: sp.Basic, rule: dict) -> sp.Basic:
    return expr.xreplace(rule)


@pytest.mark.parametrize("theorem_id", ["proxskip.thm4.2", "feddro.cor2"])
def test_derive_with_memories_equals_derive_through_plain_sympy(
        theorem_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    thm = registry.get(theorem_id)
    sympy_new = MinMaxBase.__dict__["__new__"]
    remembered = complexity.derive(thm).as_json()
    assert MinMaxBase.__dict__["__new__"] is sympy_new  # sympy is left as it is
    for memo in COMPLEXITY_MEMORIES:
        monkeypatch.setattr(complexity, memo, {})
    monkeypatch.setattr(minmax, "_CONNECTED", {})
    monkeypatch.setattr(complexity, "_replace", _plain_replace)
    monkeypatch.setattr(complexity, "_minmax", lambda kind, args: kind(*args))
    monkeypatch.setattr(complexity, "_solve_term", complexity._solve_term.__wrapped__)
    monkeypatch.setattr(complexity, "_monomials", complexity._monomials.__wrapped__)
    monkeypatch.setattr(complexity, "_remember", lambda memo, key, value: None)
    plain = complexity.derive(thm).as_json()
    assert plain == remembered
    assert any(row["derived"] for reg in plain["regimes"] for row in reg["orders"])
