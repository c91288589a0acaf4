"""Expressions as JSON trees (:mod:`fedbounds.exprtree`): written and rebuilt exactly, and a
tree that is not one ``to_tree`` writes is refused without evaluating anything."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy as sp

from fedbounds import registry
from fedbounds.complexity import derive
from fedbounds.exprtree import MAX_DEPTH, TreeError, as_basic, from_tree, to_tree

x = sp.Symbol("x", positive=True)
K = sp.Symbol("K", positive=True, integer=True)


def round_trip(expr: sp.Basic) -> sp.Basic:
    return from_tree(json.loads(json.dumps(to_tree(expr))))


@pytest.mark.parametrize("expr", [
    sp.Max(K / x**4, sp.log(K) ** 2 / (3 * x)), sp.Min(x, K), sp.Rational(-7, 3) * x,
    sp.Float(0.1) * x, sp.oo, -sp.oo, sp.pi * x, sp.exp(x) + sp.Abs(x - 1), sp.Gt(x, 2),
    sp.And(x > 1, x < 2), sp.Piecewise((x, x > 1), (1, True)), sp.Function("O")(x),
    sp.Integer(10) ** 400, sp.sqrt(x + K)])
def test_round_trip_is_exact(expr: sp.Basic) -> None:
    back = round_trip(expr)
    assert back == expr and sp.srepr(back.func) == sp.srepr(expr.func)


def test_every_derived_order_of_a_paper_round_trips() -> None:
    """The report stores these: SAGDA's orders (Max, log, rationals, integer symbols)."""
    thm = registry.get("sagda.cor3")
    orders = [e for reg in derive(thm).regimes for row in reg.rows
              for e in (row.derived_order, row.claimed) if e is not None]
    assert orders
    for expr in orders:
        assert round_trip(expr) == expr
        assert sp.sstr(round_trip(expr)) == sp.sstr(expr)


@pytest.mark.parametrize("tree", [
    "Symbol('x')", ["__import__('os').system('true')"], ["Symbol", "os.system", {}],
    ["Symbol", "x", {"__class__": True}], ["Symbol", "x", {"positive": "yes"}],
    ["Integer", "1e3"], ["Integer", 3], ["Integer", "9" * 1001], ["Rational", "1", "0"],
    ["Float", "nan(1)"], ["Pow", ["Integer", "2"]], ["Function", "a b", ["Integer", "1"]],
    ["pi", ["Integer", "1"]], [], [1, 2], {"Add": []}])
def test_anything_else_is_refused(tree: object) -> None:
    with pytest.raises(TreeError):
        from_tree(tree)


def test_deep_trees_are_refused_and_powers_not_computed() -> None:
    deep: list = ["Integer", "1"]
    for _ in range(MAX_DEPTH + 5):
        deep = ["exp", deep]
    with pytest.raises(TreeError, match="deeper"):
        from_tree(deep)
    power = from_tree(["Pow", ["Integer", "10"], ["Pow", ["Integer", "10"], ["Integer", "9"]]])
    assert isinstance(power, sp.Pow) and isinstance(power.exp, sp.Pow)  # 10**10**9 not computed


def test_as_basic_converts_numbers_and_refuses_text() -> None:
    assert as_basic(3) == sp.Integer(3) and as_basic(Fraction(1, 3)) == sp.Rational(1, 3)
    assert as_basic(x) is x and as_basic(0.5) == sp.Float(0.5)
    for bad in ("x", "__import__('os')", True, None):
        with pytest.raises(TypeError):
            as_basic(bad)
