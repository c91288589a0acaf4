"""The algorithm contract, over every discovered algorithm and each problem it declares:
one step from ``init`` keeps the state's fields and shapes, and identical seeds give identical
iterates (bit for bit)."""

from __future__ import annotations

import copy
from functools import cache

import numpy as np
import pytest

from fedbounds.verify import catalog
from fedbounds.verify.algorithm import Algorithm, simulate

PAIRS = sorted((name, problem) for name, alg in catalog.algorithms().items()
               for problem in getattr(alg, "problems", ()))


@cache
def _instance(problem: str):
    """The problem at its defaults and seed 0, made once per problem (a make costs up to ~1 s:
    its constants are eigenvalue computations)."""
    return catalog.problems()[problem].make({}, 0)


def _method(name: str, problem: str):
    """The algorithm on its own copy of the problem (nothing a method does to its instance
    reaches another test or run)."""
    alg = catalog.algorithms()[name]
    return alg.method(copy.deepcopy(_instance(problem)))


def test_every_algorithm_is_a_unit_with_problems():
    algorithms = catalog.algorithms()
    assert algorithms
    for name, alg in algorithms.items():
        assert isinstance(alg, Algorithm), name
        assert alg.problems, f"{name} declares no problem"
        assert set(alg.problems) <= set(catalog.problems()), name


@pytest.mark.parametrize(("name", "problem"), PAIRS)
def test_one_step_keeps_the_state_shape(name, problem):
    method = _method(name, problem)
    state = method.init(3, 0)
    assert hasattr(state, "_fields"), f"{name}: state is not a NamedTuple"
    streams = {k: draw(np.random.default_rng(1), 3) for k, draw in method.streams.items()}
    new, communicated = method.step(state, streams, 0)
    assert type(new) is type(state)
    for field, before, after in zip(state._fields, state, new, strict=True):
        assert np.shape(before) == np.shape(after), (name, field)
    assert np.shape(communicated) == (3,)
    for observe in method.observe.values():
        assert np.shape(observe(new)) == (3,)


@pytest.mark.parametrize(("name", "problem"), PAIRS)
def test_identical_seeds_give_identical_iterates(name, problem):
    runs = [simulate(_method(name, problem), 3, replicas=2, seed=11) for _ in range(2)]
    for a, b in zip(runs[0].state, runs[1].state, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for k in runs[0].metrics:
        np.testing.assert_array_equal(runs[0].metrics[k], runs[1].metrics[k])
