"""The implied constant of an O(·) bound (verify/fitting.py: implied_constant), the machinery of
every O(·) bound-validity claim: c = observed/bound over a star grid of the theorem's free
constants, refuted only if c grows without limit in a direction of claimed uniformity."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedbounds.verify.claim import FigureSpec, UpperBound, claim
from fedbounds.verify.fitting import Axis, implied_constant

KAPPAS = (1.0, 2.0, 4.0, 8.0, 16.0)
TS = (100.0, 1000.0, 10_000.0, 100_000.0)


def _axis(xs, observed, bound, se=()) -> Axis:
    return Axis(tuple(xs), tuple(float(o) for o in observed), tuple(float(b) for b in bound),
                tuple(se))


def _planted(true_power: float, bound_power: float, constant: float, noise: float = 0.0,
             seed: int = 0) -> dict[str, Axis]:
    """observed = constant·κ^true_power·(noise) against the bound κ^bound_power; along T the
    observed quantity is constant·(1 + 1/T), the bound 1 + 1/T (the same rate)."""
    rng = np.random.default_rng(seed)
    k = np.array(KAPPAS)
    obs = constant * k**true_power * (1 + noise * rng.standard_normal(k.size))
    t = np.array(TS)
    return {"kappa": _axis(k, obs, k**bound_power, (noise * obs) if noise else ()),
            "T": _axis(t, constant * (1 + 1 / t), 1 + 1 / t)}


def test_a_bound_with_a_wrong_exponent_is_refuted():
    """The bound says κ¹ where the truth is κ²: the implied constant grows like κ."""
    ic = implied_constant(_planted(2.0, 1.0, 1.0))
    assert ic.verdict == "refuted" and ic.growing == ["kappa"]
    assert ic.slopes["kappa"].slope == pytest.approx(1.0) and ic.slopes["kappa"].lo > 0.9
    assert ic.largest == pytest.approx(16.0) and ic.where == {"direction": "kappa", "kappa": 16.0}


def test_a_wrong_exponent_is_refuted_through_monte_carlo_noise():
    ic = implied_constant(_planted(2.0, 1.5, 3.0, noise=0.01, seed=4))
    assert ic.verdict == "refuted" and ic.slopes["kappa"].lo > 0.3


def test_a_correct_bound_with_a_large_constant_is_confirmed():
    """The right exponent with a hidden constant 10⁴: bounded, however large."""
    ic = implied_constant(_planted(2.0, 2.0, 1e4, noise=0.01, seed=1))
    assert ic.verdict == "confirmed" and not ic.growing
    assert all(abs(f.slope) < 0.05 for f in ic.slopes.values())
    assert 9e3 < ic.largest < 1.1e4


def test_a_saturating_constant_is_judged_on_the_far_end_of_its_axis():
    """c = 81 − 40/√κ grows over the whole axis but levels off: its far end does not refute,
    while a fit over every point would see a positive slope."""
    k = np.geomspace(1, 64, 7)
    axes = {"kappa": _axis(k, 81 - 40 / np.sqrt(k), np.ones(k.size))}
    assert implied_constant(axes, tail=3).verdict == "confirmed"
    assert implied_constant(axes, tail=7).verdict == "refuted"


def test_only_directions_of_claimed_uniformity_refute():
    axes = _planted(2.0, 1.0, 1.0)
    assert implied_constant(axes, uniform=("T",)).verdict == "confirmed"


def test_too_few_points_leave_the_interval_open():
    k = (1.0, 2.0)
    ic = implied_constant({"kappa": _axis(k, (1.0, 4.0), (1.0, 1.0))}, tail=2)
    assert math.isinf(ic.slopes["kappa"].hi) and ic.verdict == "inconclusive"
    falling = implied_constant({"kappa": _axis(k, (4.0, 1.0), (1.0, 1.0))}, tail=2)
    assert math.isinf(falling.slopes["kappa"].hi) and falling.verdict == "confirmed"


def test_a_constant_falling_on_a_curve_is_bounded_however_wide_its_interval():
    s = (1.0, 4.0, 16.0)
    ic = implied_constant({"sigma_G": _axis(s, (48.0, 20.0, 2.6), (1.0, 1.0, 1.0))})
    assert ic.slopes["sigma_G"].hi - ic.slopes["sigma_G"].lo > 2 and ic.verdict == "confirmed"


@pytest.mark.parametrize("axes", [{}, {"kappa": Axis((1.0, 2.0), (1.0, -1.0), (1.0, 1.0))},
                                  {"kappa": Axis((0.0, 2.0), (1.0, 1.0), (1.0, 1.0))}])
def test_bad_grids_are_refused(axes):
    with pytest.raises(ValueError):
        implied_constant(axes)


@claim("toy.p90", title="planted O(·) bound", prediction="observed ≤ O(κ^bound_power)",
       source="test", provenance="paper", rule=UpperBound("slope_floor", end="lower"),
       params={"bound_power": 2.0, "slope_floor": 0.05}, perturb={"bound_power": 1.0},
       figure=FigureSpec("implied constant", "κ", "c", logx=True))
def planted(params, seed):
    axes = _planted(2.0, params["bound_power"], 1e4, noise=0.01, seed=seed)
    ic = implied_constant(axes, slope_floor=params["slope_floor"])
    return ic.measurement(series={d: (list(a.x), a.constants.tolist()) for d, a in axes.items()})


def test_a_claim_built_on_it_gets_its_verdict():
    good, wrong = planted.run(), planted.run("quick", 0, **planted.perturb)
    assert (good.verdict, wrong.verdict) == ("confirmed", "refuted")
    assert wrong.statistic == pytest.approx(1.0, abs=0.05)
    assert wrong.evidence["implied_constant"]["growing"] == ["kappa"]
    assert good.evidence["implied_constant"]["largest"] > 9e3
    assert "bounded" in good.predicted
