"""Sympy expressions as JSON trees, rebuilt through a fixed vocabulary: never by ``eval``.

A stored expression (the report's complexity orders in the result store) is data someone else
may have written: a colleague's store, a shared filesystem, an archive. Sympy's own text forms
(``srepr``, ``sstr``) are read back by evaluating them as Python, so they are not used for
anything that is read again. :func:`to_tree` writes an expression as nested JSON lists,
``["Add", ["Symbol", "x", {"positive": true}], ["Integer", "2"]]``, and :func:`from_tree`
rebuilds it node by node from the table :data:`NODES` of sympy classes, rejecting anything
else (:class:`TreeError`). Operators are rebuilt with ``evaluate=False``: the tree is the
canonical form it was written from, so rebuilding it is exact (``from_tree(to_tree(e)) == e``)
and costs no simplification, and a planted ``10**10**9`` is never computed.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp

MAX_NODES = 200_000  # far above the largest derivation (about 2,000 nodes)
MAX_DEPTH = 200
MAX_DIGITS = 1_000  # of one integer literal

# assumptions a stored symbol may carry (sympy's names), each a JSON boolean
ASSUMPTIONS = frozenset({
    "positive", "negative", "nonnegative", "nonpositive", "nonzero", "zero", "integer",
    "rational", "real", "finite", "extended_real", "commutative"})

_CONSTANTS: dict[str, sp.Basic] = {
    "pi": sp.pi, "E": sp.E, "oo": sp.oo, "-oo": -sp.oo, "zoo": sp.zoo, "nan": sp.nan,
    "true": sp.true, "false": sp.false}
_CONSTANT_NAMES = {type(value): name for name, value in _CONSTANTS.items()}  # singletons


def as_basic(value: object) -> sp.Basic:
    """A number or expression as sympy's (int → Integer, Fraction → Rational, float → Float);
    text is refused, never parsed (sympy's own converter would evaluate it)."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        raise TypeError(f"{type(value).__name__} is not a number or sympy expression")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    return sp.Float(value)


class TreeError(ValueError):
    """A tree that is not one :func:`to_tree` writes (unknown node, wrong arity, too large)."""


def _unevaluated(cls: Callable[..., sp.Basic], arity: range | None = None
                 ) -> tuple[Callable[..., sp.Basic], range | None]:
    return (lambda *args: cls(*args, evaluate=False)), arity


# node name -> (constructor of the children, allowed number of children or None for any)
NODES: dict[str, tuple[Callable[..., sp.Basic], range | None]] = {
    "Add": _unevaluated(sp.Add), "Mul": _unevaluated(sp.Mul),
    "Pow": _unevaluated(sp.Pow, range(2, 3)),
    "Max": _unevaluated(sp.Max, range(1, MAX_NODES)),
    "Min": _unevaluated(sp.Min, range(1, MAX_NODES)),
    "log": _unevaluated(sp.log, range(1, 3)), "exp": _unevaluated(sp.exp, range(1, 2)),
    "Abs": _unevaluated(sp.Abs, range(1, 2)),
    "floor": _unevaluated(sp.floor, range(1, 2)),
    "ceiling": _unevaluated(sp.ceiling, range(1, 2)),
    "StrictGreaterThan": _unevaluated(sp.Gt, range(2, 3)),
    "GreaterThan": _unevaluated(sp.Ge, range(2, 3)),
    "StrictLessThan": _unevaluated(sp.Lt, range(2, 3)),
    "LessThan": _unevaluated(sp.Le, range(2, 3)),
    "Equality": _unevaluated(sp.Eq, range(2, 3)),
    "Unequality": _unevaluated(sp.Ne, range(2, 3)),
    "Not": _unevaluated(sp.Not, range(1, 2)),
    "And": (lambda *args: sp.And(*args, evaluate=False), None),
    "Or": (lambda *args: sp.Or(*args, evaluate=False), None),
    "Piecewise": (lambda *pairs: sp.Piecewise(*pairs, evaluate=False), None),
    "ExprCondPair": (lambda e, c: sp.Tuple(e, c), range(2, 3)),
}


def to_tree(expr: sp.Basic) -> list:
    """``expr`` as nested JSON lists (see the module docstring); :class:`TreeError` for a node
    outside :data:`NODES` (so nothing is written that :func:`from_tree` would refuse)."""
    if isinstance(expr, sp.Symbol):
        assumptions = {k: v for k, v in expr._assumptions_orig.items() if k in ASSUMPTIONS}
        return ["Symbol", expr.name, assumptions]
    if isinstance(expr, sp.Integer):
        return ["Integer", str(int(expr))]
    if isinstance(expr, sp.Rational):
        return ["Rational", str(expr.p), str(expr.q)]
    if isinstance(expr, sp.Float):
        return ["Float", repr(float(expr))]
    constant = _CONSTANT_NAMES.get(type(expr))
    if constant is not None:
        return [constant]
    if isinstance(expr, sp.Piecewise):
        return ["Piecewise", *(["ExprCondPair", to_tree(e), to_tree(c)] for e, c in expr.args)]
    if isinstance(expr, sp.core.function.AppliedUndef):
        return ["Function", str(expr.func), *(to_tree(a) for a in expr.args)]
    name = type(expr).__name__
    if name not in NODES:
        raise TreeError(f"{name} is not in the stored vocabulary")
    return [name, *(to_tree(a) for a in expr.args)]


def from_tree(tree: Any) -> sp.Basic:
    """The expression of a tree :func:`to_tree` wrote; :class:`TreeError` for anything else
    (an unknown node or assumption, a wrong number of children, a tree too deep or too
    large). Nothing in the tree is evaluated as code."""
    count = [0]
    return _build(tree, 0, count)


def _build(tree: Any, depth: int, count: list[int]) -> sp.Basic:
    count[0] += 1
    if count[0] > MAX_NODES or depth > MAX_DEPTH:
        raise TreeError(f"tree deeper than {MAX_DEPTH} or larger than {MAX_NODES} nodes")
    if not isinstance(tree, list) or not tree or not isinstance(tree[0], str):
        raise TreeError(f"a node is a list starting with its name, not {_short(tree)}")
    name, args = tree[0], tree[1:]
    if name == "Symbol":
        return _symbol(args)
    if name in ("Integer", "Rational"):
        return _rational(name, args)
    if name == "Float":
        if len(args) != 1 or not isinstance(args[0], str):
            raise TreeError("a Float node holds one decimal string")
        try:
            return sp.Float(float(args[0]))
        except ValueError:
            raise TreeError(f"not a float: {_short(args[0])}") from None
    if name in _CONSTANTS:
        if args:
            raise TreeError(f"{name} has no children")
        return _CONSTANTS[name]
    if name == "Function":
        if not args or not isinstance(args[0], str) or not args[0].isidentifier():
            raise TreeError("a Function node starts with an identifier")
        return sp.Function(args[0])(*(_build(a, depth + 1, count) for a in args[1:]))
    if name not in NODES:
        raise TreeError(f"unknown node {_short(name)}")
    make, arity = NODES[name]
    if arity is not None and len(args) not in arity:
        raise TreeError(f"{name} takes {arity.start}..{arity.stop - 1} children, not {len(args)}")
    children = [_build(a, depth + 1, count) for a in args]
    try:
        return make(*children)
    except (TypeError, ValueError, AttributeError) as e:
        raise TreeError(f"{name} of these children: {e}") from None


def _symbol(args: list) -> sp.Symbol:
    if len(args) != 2 or not isinstance(args[0], str) or not isinstance(args[1], dict):
        raise TreeError("a Symbol node holds a name and its assumptions")
    name, assumptions = args
    if not name or len(name) > 100 or not name.replace("_", "a").isalnum():
        raise TreeError(f"not a symbol name: {_short(name)}")
    bad = [k for k, v in assumptions.items() if k not in ASSUMPTIONS or not isinstance(v, bool)]
    if bad:
        raise TreeError(f"unknown assumption {_short(bad[0])}")
    try:
        return sp.Symbol(name, **assumptions)
    except (ValueError, sp.core.facts.InconsistentAssumptions) as e:
        raise TreeError(f"inconsistent assumptions: {e}") from None


def _rational(name: str, args: list) -> sp.Rational:
    want = 1 if name == "Integer" else 2
    if len(args) != want or not all(isinstance(a, str) for a in args):
        raise TreeError(f"an {name} node holds {want} decimal string(s)")
    if any(len(a) > MAX_DIGITS or not a.lstrip("-").isdigit() or not a.isascii() for a in args):
        raise TreeError(f"not an integer of at most {MAX_DIGITS} digits: {_short(args)}")
    numbers = [int(a) for a in args]
    if name == "Rational" and numbers[1] == 0:
        raise TreeError("a Rational with denominator 0")
    return sp.Integer(numbers[0]) if name == "Integer" else sp.Rational(*numbers)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
