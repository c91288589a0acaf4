"""The speed-ups of the exact machinery give the engine's own answers: max-step decided on the
conditions with the varied symbol equals the engine's max-step on every condition, and a bound's
value without its conditions equals the engine's bound."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fedbounds import engine, registry
from fedbounds.errors import BadInput
from fedbounds.problems.minmax import make_game
from fedbounds.verify import exact, sweeps
from fedbounds.verify.algorithms.fednorm import taus
from fedbounds.verify.claims import fednorm as claims
from fedbounds.verify.exact import fednorm

STEP_ORDER = ("gamma_sy", "gamma_sx", "eta_cy", "eta_cx")


def thm1_point(mu: float, tau_max: int) -> dict[str, Fraction]:
    """Theorem 1's exact inputs at one point of the fednorm.p20 grid."""
    g = make_game({**claims.P20_SET, "mu": mu}, 0)
    P = g.M // 2
    return fednorm.thm1_inputs(g, taus(g, {**claims.P20_ALG, "tau_max": tau_max, "P": P}), P)


def sequential(thm, inputs, max_step) -> list[engine.MaxStepResult]:
    """The four step sizes of fednorm.p20 one at a time, with ``max_step``."""
    names = set(engine.compiled(thm).condition_inputs)
    tiny = Fraction(1, 10**12)
    cur = {"gamma_sx": tiny, "eta_cx": tiny, "eta_cy": tiny}
    out = []
    for name in STEP_ORDER:
        cur.pop(name, None)
        result = max_step(thm, name, {k: v for k, v in {**inputs, **cur}.items() if k in names})
        out.append(result)
        cur[name] = Fraction(result.value)
    return out


@pytest.mark.parametrize(("mu", "tau_max"), [(1.0, 3), (1.0, 27)])
def test_max_step_on_the_varied_conditions_equals_the_engines(mu, tau_max):
    thm = registry.get("fednorm.thm1.corrected")
    inputs = thm1_point(mu, tau_max)
    fast = sequential(thm, inputs, exact.max_step)
    slow = sequential(thm, inputs, engine.max_step)
    for a, b in zip(fast, slow, strict=True):
        assert (a.value, a.binding, a.binding_all, a.attained, a.exact, a.decimal) == \
            (b.value, b.binding, b.binding_all, b.attained, b.exact, b.decimal)
    # the later steps are bound by conditions that do not contain the first one
    assert fast[0].binding != fast[1].binding


@pytest.mark.slow
@pytest.mark.parametrize("mu", [1 / 4, 1 / 16, 1 / 64])
def test_max_step_equals_the_engines_at_small_mu(mu):
    thm = registry.get("fednorm.thm1.corrected")
    inputs = thm1_point(mu, 3)
    fast = sequential(thm, inputs, exact.max_step)
    slow = sequential(thm, inputs, engine.max_step)
    assert [(a.value, a.binding) for a in fast] == [(b.value, b.binding) for b in slow]


def test_max_step_with_a_violated_other_condition_is_infeasible_as_in_the_engine():
    thm = registry.get("fednorm.thm1.corrected")
    inputs = {k: v for k, v in thm1_point(1.0, 3).items()
              if k in engine.compiled(thm).condition_inputs}
    # γ^s_y far above its max-step: the condition γ^s_x ≤ γ^s_y/(81κ²) does not restrict η^c_y,
    # but γ^s_y's own condition (no η^c_y in it) fails, so no η^c_y is feasible
    values = {**inputs, "gamma_sy": Fraction(10), "gamma_sx": Fraction(1, 10**12),
              "eta_cx": Fraction(1, 10**12)}
    fast, slow = exact.max_step(thm, "eta_cy", values), engine.max_step(thm, "eta_cy", values)
    assert fast.value is None and slow.value is None
    assert fast.binding_all == slow.binding_all and fast.binding_all


def test_bound_value_equals_the_engines_bound_at_every_horizon():
    thm = registry.get("fednorm.thm1.corrected")
    inputs = thm1_point(1.0, 3)
    steps, _ = claims.p20_steps(thm, inputs)
    point = {**inputs, **{k: Fraction(v) for k, v in steps.items()}}
    values = []
    for T in (100, 12345, 10**11):
        full = engine.bound(thm, {**point, "T": Fraction(T)})
        assert exact.bound_value(thm, {**point, "T": Fraction(T)}) == full.value
        assert full.feasible
        values.append(full.value)
    assert values[0] > values[1] > values[2]  # the optimization term falls with T


def test_split_conditions_keeps_every_condition_once():
    thm = registry.get("fednorm.thm1.corrected")
    with_vary, without = exact.split_conditions(thm, "gamma_sx")
    names = [c.name for c in thm.conditions]
    assert sorted(c.name for c in [*with_vary.conditions, *without.conditions]) == sorted(names)
    assert "B.5: gamma_sx <= gamma_sy/(81 kappa^2)" in [c.name for c in with_vary.conditions]
    assert all("gamma_sx" not in cc.args for cc in engine.compiled(without).conditions)
    assert all("gamma_sx" in cc.args for cc in engine.compiled(with_vary).conditions)
    assert exact.split_conditions(thm, "gamma_sx")[0] is with_vary  # cached


def test_bound_along_the_horizon_is_the_engines_bound():
    thm = registry.get("fednorm.thm1.corrected")
    inputs = thm1_point(1.0, 27)
    steps, _ = claims.p20_steps(thm, inputs)
    point = {**inputs, **{k: Fraction(v) for k, v in steps.items()}}
    along = exact.bound_along(thm, point, "T")
    for T in (1, 100, 7919, 10**11, 10**300):
        assert along(Fraction(T)) == engine.bound(thm, {**point, "T": Fraction(T)}).value
    assert along(Fraction(1)) > along(Fraction(10**300)) > 0  # only the 1/T term falls
    # a subnormal input: float64 does not hold it, the engine's exact path decides
    tiny = {**point, "Delta_Phi": Fraction(1, 10**320)}
    along_tiny = exact.bound_along(thm, tiny, "T")
    assert along_tiny(Fraction(3)) == engine.bound(thm, {**tiny, "T": Fraction(3)}).value
    assert along_tiny(Fraction(3)) < along(Fraction(3))


def test_bound_along_rejects_what_the_engine_rejects():
    thm = registry.get("fednorm.thm1.corrected")
    point = thm1_point(1.0, 3)
    steps, _ = claims.p20_steps(thm, point)
    along = exact.bound_along(thm, {**point, **{k: Fraction(v) for k, v in steps.items()}}, "T")
    with pytest.raises(BadInput):
        along(Fraction(-5))
    with pytest.raises(BadInput):
        exact.bound_along(thm, {**point, "mu": Fraction(-1)}, "T")


def test_sweep_bound_along_T_is_the_bound_at_every_T():
    thm = registry.get("fednorm.thm1")
    point = thm1_point(1.0, 3)
    steps, _ = claims.p20_steps(thm, point)
    values = {**point, **steps}
    hold, violated, along = sweeps.bound_along("fednorm.thm1", values, "T")
    for T in (32, 4096, 2**40):
        bd = sweeps.bound_at("fednorm.thm1", {**values, "T": T})
        assert (along(T), hold, violated) == (bd.value, bd.feasible, bd.violated)
    # a theorem whose conditions contain T: no shortcut, the bound per T
    assert sweeps.bound_along("feddro.cor1", {}, "T") is None


def test_the_reduced_copy_is_used_only_where_a_long_condition_is_tight(monkeypatch):
    thm = registry.get("fednorm.thm1.corrected")
    inputs = thm1_point(1.0, 27)
    calls: list[str] = []
    split = exact.split_conditions
    monkeypatch.setattr(exact, "split_conditions",
                        lambda theorem, vary: calls.append(vary) or split(theorem, vary))
    sequential(thm, inputs, exact.max_step)
    # γ^s_y: nothing tight (the others tiny); γ^s_x and the η's: γ^s_y's condition is tight
    assert calls == ["gamma_sx", "eta_cy", "eta_cx"]
    calls.clear()
    tiny = Fraction(1, 10**12)  # P ≤ n tight: decided at once, no copy
    n_equals_P = {**inputs, "P": inputs["n"], "gamma_sx": tiny, "eta_cx": tiny, "eta_cy": tiny}
    exact.max_step(thm, "gamma_sy", {k: v for k, v in n_equals_P.items()
                                     if k in engine.compiled(thm).condition_inputs})
    assert calls == []
