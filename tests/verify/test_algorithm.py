"""The algorithm shape (verify.algorithm): declared parameters are validated once (integers
never truncated, limits named), and simulate/run_document give the DESIGN "Runs" document."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.verify.algorithm import Algorithm, Method, Param, run_document, simulate


class Scalar(NamedTuple):
    x: np.ndarray


def build_decay(problem, config) -> Method[Scalar]:
    """x ← (1 − γ)x + noise: contracts for 0 < γ < 2, blows up beyond."""
    gamma, K = config["gamma"], config["K"]

    def init(replicas, seed):
        return Scalar(np.ones(replicas))

    def step(state, draws, t):
        x = state.x
        for _ in range(K):
            x = (1 - gamma) * x + problem["sigma"] * draws["noise"]
        return Scalar(x), np.ones_like(x)

    return Method(init, step, observe={"dist_sq": lambda s: s.x**2},
                  streams={"noise": lambda rng, R: rng.standard_normal(R)},
                  config={"gamma": gamma, "K": K}, constants={"sigma": problem["sigma"]})


DECAY = Algorithm("decay", "toy", "x ← (1 − γ)x", build_decay,
                  params={"gamma": Param(0.5, "step", low=0.0), "K": Param(1, "steps", kind=int,
                                                                             low=1)},
                  problems=("scalar",))


@pytest.mark.parametrize(("values", "argument", "message"), [
    ({"K": 1.5}, "--set K", "integer"), ({"K": 0}, "--set K", ">= 1"),
    ({"gamma": -1}, "--set gamma", ">= 0"), ({"gamma": math.inf}, "--set gamma", "finite"),
    ({"typo": 1}, "--set typo", "allowed: K, gamma")])
def test_bad_values_are_refused_naming_the_parameter(values, argument, message):
    with pytest.raises(BadInput) as err:
        DECAY.config(values)
    assert err.value.argument == argument and message in err.value.message


def test_config_keeps_integers_and_exact_values():
    cfg = DECAY.config({"K": Fraction(3), "gamma": Fraction(1, 4)})
    assert cfg == {"gamma": 0.25, "K": 3} and isinstance(cfg["K"], int)
    assert DECAY.config({}) == {"gamma": 0.5, "K": 1}


def test_choices_for_string_parameters():
    p = Param("proof", "variant", kind=str, choices=("proof", "literal"))
    assert p.check("variant", "literal") == "literal"
    with pytest.raises(BadInput, match="proof, literal"):
        p.check("variant", "other")


def test_simulate_is_reproducible_and_reports_divergence():
    method = DECAY.method({"sigma": 0.1}, {"gamma": 0.5})
    a, b = (simulate(method, 20, replicas=4, seed=7) for _ in range(2))
    np.testing.assert_array_equal(a.metrics["dist_sq"], b.metrics["dist_sq"])
    blow = simulate(DECAY.method({"sigma": 0.0}, {"gamma": 1e60}), 50, replicas=2, seed=0)
    assert blow.diverged and blow.diverged_at is not None and blow.diverged_at <= 3


def test_run_document_has_the_design_keys():
    doc = run_document(DECAY, "scalar", {"sigma": 0.0, "constants": None}, {"K": 2}, 3, 2, 0)
    assert set(doc) == {"algorithm", "problem", "constants", "config", "metrics", "summary"}
    assert doc["config"] == {"gamma": 0.5, "K": 2}
    assert doc["metrics"]["dist_sq"] == pytest.approx([1.0, 0.5**4, 0.5**8, 0.5**12])
    assert doc["summary"]["final_dist_sq"] == pytest.approx(0.5**12)
    assert doc["summary"]["communications"] == 3 and doc["summary"]["diverged"] is False
