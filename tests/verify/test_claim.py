"""The claim shape (verify.claim): decision rules, checks, override validation, profiles,
variants and the generic evaluator. Synthetic measure functions make every branch reachable."""

from __future__ import annotations

import math

import pytest

from fedbounds.errors import BadInput
from fedbounds.verify.claim import (
    AtMost,
    Check,
    FigureSpec,
    Interval,
    LowerBound,
    Measurement,
    RunConfig,
    UpperBound,
    claim,
    decide,
)

FIG = FigureSpec("t", "x", "y")


def m(stat, lo=None, hi=None, **kw) -> Measurement:
    return Measurement(stat, None if lo is None else (lo, hi), **kw)


@pytest.mark.parametrize(("stat", "verdict"), [(1.0, "confirmed"), (1.0 + 5e-10, "confirmed"),
                                               (1.0 + 2e-9, "refuted"), (math.nan, "diverged"),
                                               (None, "diverged")])
def test_upper_bound(stat, verdict):
    assert decide(UpperBound(1.0, rtol=1e-9), m(stat), {}) == verdict


def test_upper_bound_on_the_lower_end_of_the_interval():
    rule = UpperBound(1.0, rtol=0.0, end="lower")
    assert decide(rule, m(1.2, 0.9, 1.5), {}) == "confirmed"
    assert decide(rule, m(1.2, 1.1, 1.5), {}) == "refuted"


def test_lower_bound():
    assert decide(LowerBound(2.0), m(2.0), {}) == "confirmed"
    assert decide(LowerBound(2.0), m(1.9), {}) == "refuted"


@pytest.mark.parametrize(("lo", "hi", "verdict"), [(0.9, 1.1, "confirmed"), (1.25, 1.3, "refuted"),
                                                   (0.5, 0.7, "refuted"), (0.0, 2.0, "inconclusive"),
                                                   (math.inf, 1.0, "diverged")])
def test_interval(lo, hi, verdict):
    assert decide(Interval(1.0, 0.2), m((lo + hi) / 2, lo, hi), {}) == verdict


def test_interval_without_an_interval_compares_the_statistic():
    assert decide(Interval(0.0, 1e-12), m(3e-13), {}) == "confirmed"
    assert decide(Interval(0.0, 1e-12), m(3e-12), {}) == "refuted"


def test_at_most():
    rule = AtMost(-0.5, 0.1)
    assert decide(rule, m(-0.8, -0.9, -0.7), {}) == "confirmed"
    assert decide(rule, m(-0.3, -0.35, -0.2), {}) == "refuted"
    assert decide(rule, m(-0.4, -0.5, -0.3), {}) == "inconclusive"


def test_rule_values_can_name_parameters_and_the_reference():
    assert decide(Interval("predicted", "tol"), m(1.0), {"predicted": 1.0, "tol": 0.1}) == \
        "confirmed"
    assert decide(Interval("predicted", "tol"), m(1.0), {"predicted": 2.0, "tol": 0.1}) == \
        "refuted"
    assert decide(UpperBound("reference"), m(0.5, reference=0.4), {}) == "refuted"


def test_checks_and_reasons_override_in_order():
    rule = UpperBound(1.0)
    failed_refute = Check("floor", False, "refuted")
    failed_unsure = Check("converged", False, "inconclusive")
    assert decide(rule, m(0.5, checks=[failed_unsure]), {}) == "inconclusive"
    assert decide(rule, m(2.0, checks=[failed_unsure]), {}) == "refuted"
    assert decide(rule, m(0.5, checks=[failed_unsure, failed_refute]), {}) == "refuted"
    assert decide(rule, m(0.5, checks=[Check("ok", True)]), {}) == "confirmed"
    assert decide(rule, m(0.5, diverged="overflow at round 3"), {}) == "diverged"
    assert decide(rule, m(0.5, inconclusive="too few replicas"), {}) == "inconclusive"


@claim("toy.p1", title="t", prediction="x <= bound", source="Thm 1", provenance="paper",
       rule=UpperBound("bound"), params={"bound": 1.0, "T": 10, "label": "a"}, profiles={"full": {"T": 100}},
       perturb={"bound": 0.1}, figure=FIG)
def toy(params, seed):
    return Measurement(0.5 + 0 * params["T"], series={"s": ([0, 1], [1.0, 0.5])},
                       evidence={"T": params["T"], "seed": seed},
                       run=RunConfig("alg", "prob", {"n": 3}, rounds=params["T"], seed=seed))


def test_evaluate_builds_verdict_figure_and_config():
    v = toy.run("quick", 3)
    assert (v.id, v.verdict, v.statistic) == ("toy.p1", "confirmed", 0.5)
    assert v.evidence["T"] == 10 and v.evidence["seed"] == 3
    assert v.figure.title == "t" and v.figure.series["s"] == ([0, 1], [1.0, 0.5])
    assert v.config == {"algorithm": "alg", "problem": "prob", "set": {"n": 3}, "rounds": 10,
                        "seeds": 1, "seed": 3, "instance_seed": 0}
    assert v.predicted == "<= 1" and "at most 1" in v.rule
    assert toy.run("full").evidence["T"] == 100
    assert toy.run("quick", 0, **toy.perturb).verdict == "refuted"


@pytest.mark.parametrize(("overrides", "named"), [
    ({"predicetd": 1.0}, "predicetd"), ({"T": 1.5}, "T"), ({"bound": "x"}, "bound"),
    ({"label": 3}, "label"), ({"T": True}, "T")])
def test_bad_overrides_are_named(overrides, named):
    with pytest.raises(BadInput) as err:
        toy.run("quick", 0, **overrides)
    assert err.value.argument == named
    if named == "predicetd":
        assert "allowed: T, bound, label" in err.value.message


def test_profile_and_seed_are_validated():
    with pytest.raises(BadInput, match="profile"):
        toy.run("medium")
    with pytest.raises(BadInput, match="seed"):
        toy.run("quick", -1)


def test_an_integer_override_is_accepted_for_a_real_parameter():
    assert toy.run("quick", 0, bound=2).predicted == "<= 2"


def test_variant_shares_the_measure_and_merges_parameters():
    other = toy.variant("toy.p1b", title="b", params={"T": 20})
    assert other.measure is toy.measure and other.paper == "toy"
    assert other.run().evidence["T"] == 20 and other.run("full").evidence["T"] == 100
    assert toy.params["T"] == 10


def test_run_config_command():
    cfg = RunConfig("local-gda", "proxskip-g-norm", {"n": 3, "gamma": 0.25}, rounds=5, seeds=2,
                    seed=1, sweeps={"gamma": [0.25, 0.5]})
    assert cfg.command() == ("fedbounds run local-gda --problem proxskip-g-norm --set n=3 "
                             "gamma=0.25 --rounds 5 --seeds 2 --seed 1 --instance-seed 0  # swept: "
                             "gamma in "
                             "[0.25, 0.5]")


def test_provenance_is_in_the_verdict_and_its_meaning():
    v = toy.run()
    assert v.provenance == "paper" and v.as_json()["provenance"] == "paper"
    assert toy.refutation_meaning == "refutes the paper" and not toy.own
    derived = toy.variant("toy.p1c", provenance="derived", derivation="x ≤ bound by Thm 1")
    assert derived.own and derived.run().as_json()["provenance"] == "derived"
    assert derived.refutation_meaning == "refutes a derived prediction"
    exact = derived.variant("toy.p1d", exact_derivation=True)
    assert exact.refutation_meaning == "refutes the paper"
    guess = toy.variant("toy.p1e", provenance="conjecture")
    assert guess.refutation_meaning == "refutes a conjecture"


@pytest.mark.parametrize(("changes", "words"), [
    ({"provenance": "ours"}, "provenance must be one of paper, erratum, derived, consistency, "
                             "conjecture, extrapolation"),
    ({"provenance": "derived"}, "needs its derivation written out"),
    ({"provenance": "derived", "derivation": "  "}, "needs its derivation written out"),
    ({"provenance": "paper", "derivation": "a"}, "only a derived or extrapolation claim"),
    ({"provenance": "conjecture", "exact_derivation": True}, "only a derived claim"),
    ({"provenance": "extrapolation"}, "needs its derivation"),
    ({"provenance": "erratum"}, "names the errata")])
def test_bad_provenance_is_refused_when_the_spec_is_built(changes, words):
    with pytest.raises(ValueError, match=words):
        toy.variant("toy.p1x", **changes)


def test_provenance_is_a_required_argument_of_claim():
    with pytest.raises(TypeError, match="provenance"):
        claim("toy.p9", title="t", prediction="p", source="s", rule=UpperBound(1.0),
              figure=FIG)


def test_an_interval_that_misses_the_prediction_says_only_the_tolerance_confirms() -> None:
    from fedbounds.verify.claim import Interval, Measurement, decide, tolerance_needs_why

    rule = Interval(-2 / 3, 0.1)
    near = Measurement(-0.637, interval=(-0.64, -0.634))  # misses −2/3, within ± 0.1
    assert decide(rule, near, {}) == "confirmed"
    assert "misses -0.666667 itself: only the tolerance 0.1 confirms" in rule.words(near, {})
    covering = Measurement(-0.66, interval=(-0.7, -0.65))
    assert "misses" not in rule.words(covering, {})
    assert tolerance_needs_why(rule, {}) and not tolerance_needs_why(Interval(1.0, 0.0), {})
    assert tolerance_needs_why(Interval(1.0, "tol"), {"tol": 0.05})
    assert not tolerance_needs_why(Interval(1.0, "tol"), {"tol": 0})
