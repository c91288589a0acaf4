"""Exact analyses of the methods on their test problems (one module per paper), and two
shortcuts to the engine shared by them: :func:`max_step` (the engine's max-step decided on the
conditions that contain the varied symbol only) and :func:`bound_value` (a bound's value without
re-deciding conditions that do not change between calls)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction

from fedbounds import engine
from fedbounds.model import Theorem

_SPLIT: dict[tuple[int, str], tuple[Theorem, Theorem, Theorem]] = {}
_UNCONDITIONED: dict[int, tuple[Theorem, Theorem]] = {}


def split_conditions(thm: Theorem, vary: str) -> tuple[Theorem, Theorem]:
    """``thm`` with only the conditions that contain ``vary`` (after derived quantities are
    expanded), and ``thm`` with only the others (cached per theorem object and symbol)."""
    key = (id(thm), vary)
    if key not in _SPLIT or _SPLIT[key][0] is not thm:
        conditions = engine.compiled(thm).conditions
        with_vary = [cc.cond for cc in conditions if vary in cc.args]
        without = [cc.cond for cc in conditions if vary not in cc.args]
        _SPLIT[key] = (thm, replace(thm, conditions=with_vary), replace(thm, conditions=without))
    return _SPLIT[key][1], _SPLIT[key][2]


def _restricted(thm: Theorem, values: Mapping[str, Fraction]) -> dict[str, Fraction]:
    names = set(engine.compiled(thm).condition_inputs)
    return {n: v for n, v in values.items() if n in names}


def max_step(thm: Theorem, vary: str, values: Mapping[str, Fraction]) -> engine.MaxStepResult:
    """:func:`fedbounds.engine.max_step` of ``vary`` at ``values`` (which may hold more names
    than the conditions use), computed on the conditions that contain ``vary`` once the others
    are proven to hold at ``values``.

    A condition without ``vary`` is the same at every value of it: if it holds, it changes
    neither the feasible set nor the failing (binding) conditions, so max-step on the others
    finds the same value; it only costs time, as the engine re-decides it exactly at every probe
    when it is tight (e.g. the condition that set an earlier step size at its max-step). If one
    of them does not hold, the engine's own max-step on ``thm`` answers (no value is feasible)."""
    with_vary, without = split_conditions(thm, vary)
    if not without.conditions or engine.check(without, _restricted(without, values))[0]:
        return engine.max_step(with_vary, vary, _restricted(with_vary, values))
    return engine.max_step(thm, vary, _restricted(thm, values))


def unconditioned(thm: Theorem) -> Theorem:
    """``thm`` without its conditions (cached per theorem object): its bound's value and terms
    are those of ``thm``, computed without deciding the conditions."""
    key = id(thm)
    if key not in _UNCONDITIONED or _UNCONDITIONED[key][0] is not thm:
        _UNCONDITIONED[key] = (thm, replace(thm, conditions=[]))
    return _UNCONDITIONED[key][1]


def bound_value(thm: Theorem, values: Mapping[str, Fraction]) -> float:
    """The value of ``thm``'s bound at ``values`` (:func:`fedbounds.engine.bound`'s ``value``,
    the same float), without deciding the conditions: for a caller that decides them once for
    many values of a symbol they do not contain (e.g. the horizon T)."""
    bare = unconditioned(thm)
    names = set(engine.compiled(bare).names)
    return engine.bound(bare, {n: v for n, v in values.items() if n in names}).value
