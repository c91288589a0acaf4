"""The numeric side's input boundary: every declared parameter (algorithms, problem families,
counterexamples) has a kind, a domain and a meaning; :class:`Param` refuses non-integers,
values outside the domain and non-finite values, naming the parameter; the caps refuse too
large a run before anything is allocated; the executor turns a floating-point error inside a
step into ``diverged`` with the round and the reason."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.params import Param, check_values
from fedbounds.problems.base import ProblemEntry
from fedbounds.verify import catalog
from fedbounds.verify.algorithm import (
    Method,
    build_instance,
    check_run,
    simulate,
    summarize,
)
from fedbounds.verify.exact.feddro import counterexample

KINDS = (int, float, str)


def _declared():
    """(owner, name, Param) of every declared parameter."""
    for name, alg in catalog.algorithms().items():
        yield from ((f"algorithm {name}", k, p) for k, p in alg.params.items())
    for name, entry in catalog.problems().items():
        yield from ((f"problem {name}", k, p) for k, p in entry.params.items())
    for name, ce in catalog.counterexamples().items():
        yield from ((f"counterexample {name}", k, p) for k, p in
                    {**ce.params, **ce.options}.items())


def test_every_declared_parameter_has_kind_domain_and_meaning():
    declared = list(_declared())
    assert len(declared) > 100
    for owner, name, p in declared:
        assert isinstance(p, Param), (owner, name)
        assert p.kind in KINDS and len(p.doc) >= 2, (owner, name)
        assert p.domain().startswith(("integer", "real", "finite", "one of")), (owner, name)
        if p.kind is int:  # a size or a count: capped, so no request allocates without limit
            assert p.low is not None and p.high is not None, (owner, name)
        if p.default is not None and p.kind is not str:  # the default lies in the domain
            assert p.check(name, p.default) == p.default, (owner, name)


def test_every_problem_parameter_is_bounded():
    """A problem's sizes and magnitudes are capped by their declared domains."""
    for name, entry in catalog.problems().items():
        for k, p in entry.params.items():
            assert p.low is not None and p.high is not None, (name, k)
            assert p.high <= 1e15, (name, k)


@pytest.mark.parametrize(("value", "message"), [
    (1.5, "integer"), (Fraction(5, 2), "integer"), ("1.5", "integer"), (0, ">= 1"),
    (101, "<= 100"), (math.inf, "finite"), (math.nan, "finite"), (10**400, "too large"),
    ("x", "number"), (True, "number")], ids=lambda v: repr(v)[:12])
def test_integer_param_refuses_naming_the_parameter(value, message):
    p = Param(3, "clients", int, low=1, high=100)
    with pytest.raises(BadInput) as err:
        p.check("M", value)
    assert err.value.argument == "--set M" and message in err.value.message
    assert "integer in [1, 100]" in err.value.message  # the domain is stated


def test_integer_param_keeps_exact_integers():
    p = Param(3, "clients", int, low=1, high=100)
    assert p.check("M", Fraction(8)) == 8 and isinstance(p.check("M", Fraction(8)), int)
    assert p.check("M", 8.0) == 8 and isinstance(p.check("M", 8.0), int)
    big = Param(1, "horizon", int, low=1, high=10**20)
    assert big.check("T", 2**60 + 1) == 2**60 + 1  # never rounded through a float


@pytest.mark.parametrize(("param", "value", "message"), [
    (Param(0.1, "step", low=0, low_open=True), 0, "> 0"),
    (Param(0.1, "step", low=0, low_open=True), -1e-300, "> 0"),
    (Param(0.5, "momentum", low=0, high=1, high_open=True), 1, "< 1"),
    (Param(0.5, "momentum", low=0, high=1), Fraction(11, 10), "<= 1"),
    (Param(0.5, "real", low=-1, high=1), -math.inf, "finite"),
    (Param("gda", "oracle", str, choices=("gda", "sgda")), "adam", "gda, sgda")])
def test_real_and_choice_params_refuse_outside_the_domain(param, value, message):
    with pytest.raises(BadInput) as err:
        param.check("x", value, "--opt")
    assert err.value.argument == "--opt" and message in err.value.message


def test_given_values_are_never_replaced_by_defaults():
    params = {"m": Param(5, "samples", int, low=0, high=10), "s": Param(1.0, "size", low=0)}
    assert check_values(params, {"m": 0}, "toy") == {"m": 0, "s": 1.0}
    with pytest.raises(BadInput) as err:
        check_values(params, {"mm": 1}, "toy")
    assert err.value.argument == "--set mm" and "allowed: m, s" in err.value.message


def test_problem_entry_declares_and_validates_its_parameters():
    entry = catalog.problems()["minmax-quadratic"]
    with pytest.raises(BadInput) as err:
        entry.values({"M": Fraction(5, 2)})
    assert err.value.argument == "--set M"
    assert entry.values({"M": 4})["M"] == 4
    legacy = ProblemEntry("toy", "toy", "toy", lambda v, s: v, {"mu": (1.0, "μ")})
    assert isinstance(legacy.params["mu"], Param) and legacy.values({})["mu"] == 1.0


def test_too_large_an_instance_is_refused_before_it_is_built():
    entry = catalog.problems()["minmax-quadratic"]
    with pytest.raises(BadInput) as err:
        build_instance(entry, {"M": 100_000, "dx": 1000}, 0)
    assert err.value.argument == "--set M"
    assert "above the cap" in err.value.message and "--max-work" in err.value.message
    with pytest.raises(BadInput) as err:  # a cross-parameter defect names the parameter
        build_instance(entry, {"mu": 0}, 0)
    assert err.value.argument == "--set mu"


class Scalar(NamedTuple):
    x: np.ndarray


def _method(step, metrics=None, **cost) -> Method:
    return Method(lambda R, seed=0: Scalar(np.ones(R)), step,
                  metrics or {"x": lambda s: s.x}, **cost)


def test_an_overflow_inside_a_step_is_diverged_with_round_and_reason():
    def step(state, draws, t):
        if t == 3:  # a Python-float computation that leaves the doubles
            return Scalar(state.x * float(10.0**400)), np.ones(1)
        return Scalar(state.x * 2), np.ones(1)

    trace = simulate(_method(step), 10, replicas=1)
    assert trace.diverged and trace.diverged_at == 4 and "overflow" in trace.reason
    assert trace.iterations.tolist() == [0, 1, 2, 3]  # the records before the failing step
    summary = summarize(trace)
    assert summary["final_x"] == 8.0 and summary["final_round"] == 3
    assert summary["diverged"] is True and summary["diverged_at"] == 4


def test_a_division_by_zero_in_a_step_or_a_metric_is_diverged():
    def step(state, draws, t):
        return Scalar(state.x - 1.0 / (1 - t)), np.ones(1)

    trace = simulate(_method(step), 5, replicas=1)
    assert trace.diverged_at == 2 and "division by zero" in trace.reason
    bad_metric = {"x": lambda s: np.array([1.0 / (float(s.x[0]) - 1.0)])}  # Python floats
    trace = simulate(_method(lambda s, d, t: (s, np.ones(1)), bad_metric), 5, replicas=1)
    assert trace.diverged and trace.diverged_at == 0 and "metrics at t = 0" in trace.reason
    summary = summarize(trace)  # no finite record: said so, not a silent null
    assert summary["final_x"] is None and "no finite record" in summary["final_note"]


def test_a_blow_up_keeps_the_last_finite_values():
    trace = simulate(_method(lambda s, d, t: (Scalar(s.x * 1e60), np.ones(1))), 10, replicas=2)
    assert trace.diverged and trace.diverged_at == 2 and "exceeds 1e+100" in trace.reason
    summary = summarize(trace)  # 1e120 is finite, above the blow-up threshold: the last finite
    assert summary["final_x"] == pytest.approx(1e120) and summary["final_round"] == 2
    overflow = simulate(_method(lambda s, d, t: (Scalar(s.x * 1e200), np.ones(1))), 10,
                        blowup=math.inf)
    summary = summarize(overflow)  # 1e400 is not finite: the record before it is final
    assert overflow.diverged_at == 2 and "not finite" in overflow.reason
    assert summary["final_x"] == pytest.approx(1e200) and summary["final_round"] == 1


@pytest.mark.parametrize(("rounds", "replicas", "cost", "argument"), [
    (10**9, 1, {}, "--rounds"), (10, 10**9, {}, "--seeds"),
    (2, 1, {"local_steps": 1e8, "steps_param": "K"}, "--set K"),
    (10**7, 100, {"step_numbers": 1.0, "held_numbers": 1.0}, "--rounds")])
def test_check_run_names_the_parameter_the_cap_and_the_flag(rounds, replicas, cost, argument):
    method = _method(lambda s, d, t: (s, np.ones(1)), **cost)
    with pytest.raises(BadInput) as err:
        check_run(method, rounds, replicas, 2)
    assert err.value.argument == argument  # the cap (work 1e11 or memory 5e7) and the flag
    assert re.search(r"above the cap (1e\+11|5e\+07); lower", err.value.message)
    assert re.search(r"raise the cap with --max-work \d", err.value.message)


def test_the_work_cap_is_what_max_work_says():
    method = _method(lambda s, d, t: (s, np.ones(1)))
    check_run(method, 1000, 10, 2)  # 1000 × ~1e5: fine at the default cap
    with pytest.raises(BadInput, match="above the cap 1e"):
        check_run(method, 1000, 10, 2, max_work=1e6)
    check_run(method, 10**7, 1, 1, max_work=1e13)  # raised: allowed


def test_counterexample_diverges_and_its_work_is_capped():
    doc = counterexample("I", 2, 1e307, rounds=5)
    assert doc["diverged"] is True and doc["diverged_at"] == 1 and doc["reason"]
    assert doc["trajectory"] == [0.5] and doc["final"] == 0.5 and doc["fixed_point"] is None
    ce = catalog.counterexamples()["feddro.thm4.1"]
    with pytest.raises(BadInput) as err:
        ce.check_work({"I": 10**6, "eta": 0.1}, 50)
    assert err.value.argument == "--set I" and "--max-work" in err.value.message
    with pytest.raises(BadInput) as err:
        ce.check_work({"I": 1, "eta": 0.1}, 10**9)
    assert err.value.argument == "--rounds"
    ce.check_work({"I": 2, "eta": 0.1}, 20000)  # feddro.p1's run stays allowed


def test_listing_shows_every_declared_parameter():
    listing = catalog.listing()
    problems = {p["id"]: p for p in listing["problems"]}
    m = problems["minmax-quadratic"]["params"]["M"]
    assert m == {"default": 10, "kind": "integer", "domain": "integer in [1, 100000]",
                 "doc": "number of clients (M = n = N in the papers)"}
    for item in listing["problems"] + listing["algorithms"]:
        assert item["params"] and all(v["domain"] and v["doc"] for v in item["params"].values())
