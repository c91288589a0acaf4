"""Local GDA by PEP (``fedbounds.verify.pep.localgda``; ours, no theorem): its exact worst cases
against closed forms at 1e-4, each closed form also attained by an explicit linear instance
computed with numpy (so the SDP value is the maximum, not just a bound), the fitted scaling of
the heterogeneity bias, bad input named, and 'not solved' instead of an exception.

Instances (n = 2 clients, z* = 0, F_i(x) = g_i + J_i x, g_2 = −g_1, ‖g_i‖ = ζ):

* ζ = 0, every client J = μI + sK (K the rotation by π/2; s² = ℓμ − μ² for the star class,
  s² = L² − μ² for the Lipschitz class) or J = ℓI: each step multiplies ‖z − z*‖² by exactly
  1 − γμ(2 − γℓ), (1 − γℓ)² or 1 − 2γμ + γ²L².
* K = 2, one round from z*: J_{1,2} = (ℓ/2)(I ± K) (star class, needs ℓ ≥ 2μ: quasi-strong
  monotonicity ℓ/2, star-cocoercivity ((ℓ/2)² + (ℓ/2)²)/(ℓ/2) = ℓ) gives ‖z̄_1 − z*‖² =
  γ⁴ℓ²ζ²/4; J_{1,2} = μI ± √(L² − μ²)K (Lipschitz class) gives γ⁴(L² − μ²)ζ².
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from fedbounds.errors import BadInput
from fedbounds.verify import pep
from fedbounds.verify.pep import localgda, sdp

REL = 1e-4
ROTATION = np.array([[0.0, 1.0], [-1.0, 0.0]])
STAR = localgda.LOCAL_GDA
LIPSCHITZ = localgda.LOCAL_GDA_LIPSCHITZ


def _local_gda(jacobians: list[np.ndarray], at_solution: list[np.ndarray], start: np.ndarray,
               gamma: float, local_steps: int, rounds: int) -> np.ndarray:
    """Local GDA on F_i(x) = g_i + J_i x (z* = 0): the average after ``rounds`` rounds."""
    average = start
    for _ in range(rounds):
        ends = []
        for jacobian, value in zip(jacobians, at_solution, strict=True):
            x = average.copy()
            for _ in range(local_steps):
                x = x - gamma * (value + jacobian @ x)
            ends.append(x)
        average = np.mean(ends, axis=0)
    return average


def _star_constants(jacobian: np.ndarray) -> tuple[float, float]:
    """(quasi-strong monotonicity, star-cocoercivity) of x ↦ Jx around 0, with numpy."""
    symmetric = (jacobian + jacobian.T) / 2
    inverse = np.linalg.inv(jacobian)
    return (float(np.linalg.eigvalsh(symmetric).min()),
            1 / float(np.linalg.eigvalsh((inverse + inverse.T) / 2).min()))


def _values(model: localgda.LocalGdaModel, gamma: float, constant: float, local_steps: int,
            mu: float = 1.0, zeta: float = 1.0, clients: int = 2) -> dict:
    return {"gamma": gamma, "mu": mu, model.constant: constant, "K": local_steps,
            "zeta": zeta, "n": clients}


@pytest.mark.parametrize(("gamma", "ell", "local_steps", "rounds"), [
    (0.05, 10.0, 2, 1), (0.02, 10.0, 3, 2), (0.25, 10.0, 2, 1)])  # the last: γℓ > 2
def test_star_contraction_is_the_one_step_factor_to_the_power_kr(gamma, ell, local_steps,
                                                                   rounds):
    mu = 1.0
    rotation = mu * np.eye(2) + math.sqrt(ell * mu - mu**2) * ROTATION
    assert _star_constants(rotation) == pytest.approx((mu, ell), rel=1e-12)
    start = np.array([0.6, 0.8])
    attained = max(
        float(np.sum(_local_gda([j, j], [np.zeros(2)] * 2, start, gamma, local_steps,
                                rounds) ** 2))
        for j in (rotation, ell * np.eye(2)))
    step = max(1 - gamma * mu * (2 - gamma * ell), (1 - gamma * ell) ** 2)
    assert attained == pytest.approx(step ** (local_steps * rounds), rel=1e-12)
    result = STAR.solve(_values(STAR, gamma, ell, local_steps), steps=rounds,
                        quantities=("contraction",))
    contraction = result.quantity("contraction")
    assert contraction.kind == "exact" and contraction.comparison == "matches"
    assert contraction.worst == pytest.approx(attained, rel=REL)


def test_lipschitz_contraction_matches_the_rotation_instance():
    gamma, mu, lipschitz, local_steps = 0.05, 1.0, 3.0, 2
    rotation = mu * np.eye(2) + math.sqrt(lipschitz**2 - mu**2) * ROTATION
    assert np.linalg.norm(rotation, 2) == pytest.approx(lipschitz, rel=1e-12)
    start = np.array([1.0, 0.0])
    attained = float(np.sum(_local_gda([rotation] * 2, [np.zeros(2)] * 2, start, gamma,
                                       local_steps, 1) ** 2))
    assert attained == pytest.approx((1 - 2 * gamma * mu + gamma**2 * lipschitz**2) ** 2)
    contraction = LIPSCHITZ.solve(_values(LIPSCHITZ, gamma, lipschitz, local_steps),
                                  quantities=("contraction",)).quantity("contraction")
    assert contraction.worst == pytest.approx(attained, rel=REL)
    assert contraction.kind == "upper bound"  # three points per operator: a relaxation


@pytest.mark.parametrize("model", [STAR, LIPSCHITZ])
def test_one_local_step_is_gda_and_has_no_bias(model):
    """K = 1: Σ_i F_i(z*) = 0 makes z* fixed, whatever the heterogeneity."""
    result = model.solve(_values(model, 0.02, 10.0, 1, zeta=3.0), steps=2,
                         quantities=("bias", "fixed point"))
    for name in ("bias", "fixed point"):
        quantity = result.quantity(name)
        assert quantity.comparison == "matches" and quantity.closed_form == 0.0
        assert quantity.worst <= 1e-6 * (0.02 * 3.0) ** 2  # below the solver's accuracy


@pytest.mark.parametrize(("gamma", "ell", "clients"), [(0.01, 10.0, 2), (0.03, 10.0, 2),
                                                       (0.01, 4.0, 3)])
def test_two_local_steps_bias_after_one_round_star_class(gamma, ell, clients):
    mu, zeta = 1.0, 2.0
    assert ell >= 2 * mu
    jacobians = [ell / 2 * (np.eye(2) + sign * ROTATION) for sign in (1, -1)]
    for jacobian in jacobians:
        assert _star_constants(jacobian) == pytest.approx((ell / 2, ell), rel=1e-12)
    values = [zeta * np.array([1.0, 0.0]), -zeta * np.array([1.0, 0.0])]
    attained = float(np.sum(_local_gda(jacobians, values, np.zeros(2), gamma, 2, 1) ** 2))
    closed = gamma**4 * ell**2 * zeta**2 / 4
    assert attained == pytest.approx(closed, rel=1e-12)
    bias = STAR.solve(_values(STAR, gamma, ell, 2, mu, zeta, clients),
                      quantities=("bias",)).quantity("bias")
    assert bias.comparison == "matches" and bias.kind == "exact"
    assert bias.worst == pytest.approx(closed, rel=REL)


def test_two_local_steps_bias_after_one_round_lipschitz_class():
    gamma, mu, lipschitz, zeta = 0.02, 1.0, 5.0, 1.5
    s = math.sqrt(lipschitz**2 - mu**2)
    jacobians = [mu * np.eye(2) + sign * s * ROTATION for sign in (1, -1)]
    values = [zeta * np.array([1.0, 0.0]), -zeta * np.array([1.0, 0.0])]
    attained = float(np.sum(_local_gda(jacobians, values, np.zeros(2), gamma, 2, 1) ** 2))
    assert attained == pytest.approx(gamma**4 * (lipschitz**2 - mu**2) * zeta**2, rel=1e-12)
    bias = LIPSCHITZ.solve(_values(LIPSCHITZ, gamma, lipschitz, 2, mu, zeta),
                           quantities=("bias",)).quantity("bias")
    assert bias.kind == "exact"  # z* and z_1 only: two points per operator
    assert bias.worst == pytest.approx(attained, rel=REL) and bias.comparison == "matches"


def test_fitted_scaling_of_the_bias():
    """The scaling observed on a small grid (μ = 1, ℓ = 10, n = 2, γℓ ∈ {0.05, 0.1, 0.2},
    K ∈ {2, 3}): one round from z*, bias ∝ γ⁴ (K(K − 1))² ζ² (leading order γ⁴ℓ²ζ²K²(K − 1)²/16
    [derived heuristically: the star class lets each step turn by up to ℓ‖z − z*‖/2, and
    Σ_i F_i(z*) = 0 cancels the first order]); the fixed point Local GDA converges to lies at
    ∝ γ²(K − 1)²ζ². ζ enters exactly squared (the class is invariant under scaling z − z* and
    F together)."""
    ell, rows = 10.0, []
    for gamma_ell in (0.05, 0.1, 0.2):
        for local_steps in (2, 3):
            for zeta in ((0.5, 1.0) if (gamma_ell, local_steps) == (0.1, 2) else (1.0,)):
                result = STAR.solve(_values(STAR, gamma_ell / ell, ell, local_steps, zeta=zeta),
                                    quantities=("bias", "fixed point"))
                rows.append({"gamma": gamma_ell / ell, "pairs": local_steps * (local_steps - 1),
                             "steps_minus_one": local_steps - 1, "zeta": zeta,
                             "bias": result.quantity("bias").worst,
                             "fixed": result.quantity("fixed point").worst})
    unit = [r for r in rows if r["zeta"] == 1.0]
    one_round = localgda.fit_exponents(unit, "bias", ("gamma", "pairs"))
    fixed = localgda.fit_exponents(unit, "fixed", ("gamma", "steps_minus_one"))
    (half,) = [r for r in rows if r["zeta"] == 0.5]
    (whole,) = [r for r in unit if (r["gamma"], r["pairs"]) == (half["gamma"], half["pairs"])]
    zeta_exponents = {k: math.log(whole[k] / half[k]) / math.log(2) for k in ("bias", "fixed")}
    print(f"fitted: one-round bias ∝ γ^{one_round['gamma']:.3f} (K(K−1))^"
          f"{one_round['pairs']:.3f}; fixed point ∝ γ^{fixed['gamma']:.3f} "
          f"(K−1)^{fixed['steps_minus_one']:.3f}; ζ exponents {zeta_exponents}")
    assert one_round["gamma"] == pytest.approx(4.0, abs=0.15)
    assert one_round["pairs"] == pytest.approx(2.0, abs=0.15)
    assert fixed["gamma"] == pytest.approx(2.0, abs=0.2)
    assert fixed["steps_minus_one"] == pytest.approx(2.0, abs=0.2)
    assert zeta_exponents == pytest.approx({"bias": 2.0, "fixed": 2.0}, abs=1e-6)
    # the leading order of the one-round bias is approached from below as γℓ → 0
    leading = [r["bias"] / (r["gamma"] ** 4 * ell**2 * r["zeta"] ** 2 * r["pairs"] ** 2 / 16)
               for r in rows if r["pairs"] == 6]
    assert all(0.85 < ratio < 1 for ratio in leading)
    assert leading == sorted(leading, reverse=True)  # closer at smaller γ


@pytest.mark.parametrize(("changes", "steps", "argument"), [
    ({"K": 0}, 1, "--set K"), ({"K": 5}, 1, "--set K"), ({"ell": 0.5}, 1, "--set ell"),
    ({"n": 1}, 1, "--set n"), ({"zeta": 0}, 1, "--set zeta"), ({"L": 3}, 1, "--set L"),
    ({}, 4, "--steps")])
def test_bad_input_names_the_argument(changes, steps, argument):
    with pytest.raises(BadInput) as err:
        STAR.solve({**_values(STAR, 0.01, 10.0, 2), **changes}, steps=steps)
    assert err.value.argument == argument


def test_a_missing_solver_gives_not_solved(monkeypatch):
    monkeypatch.setattr(sdp, "installed_solvers", lambda: ["ECOS"])
    result = STAR.solve(_values(STAR, 0.01, 10.0, 2))
    assert [q.comparison for q in result.quantities] == ["not solved"] * 3
    assert all("no SDP solver available" in q.reason and q.worst is None
               for q in result.quantities)


def test_methods_are_keyed_by_algorithm_name_not_theorem():
    assert set(pep.method_models()) == {"local-gda", "local-gda.lipschitz"}
    with pytest.raises(BadInput) as err:
        pep.model("local-gda")
    assert "fedbounds pep local-gda" in err.value.message


def test_cli_reports_the_three_worst_cases():
    from fedbounds.app.cli import app

    runner = CliRunner()
    args = ["pep", "local-gda", "--set", "gamma=1/100", "mu=1", "ell=10", "K=2", "zeta=2",
            "n=2"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    quantities = doc["quantities"]
    assert set(quantities) == {"contraction", "bias", "fixed point"}
    assert quantities["bias"]["worst"] == pytest.approx(0.01**4 * 100 * 4 / 4, rel=REL)
    assert quantities["contraction"]["comparison"] == "matches"
    assert quantities["fixed point"]["comparison"] == "no closed form"
    assert quantities["fixed point"]["worst"] > quantities["bias"]["worst"]
    assert doc["id"] == "local-gda" and doc["model"]["kind"] == "exact"
    table = runner.invoke(app, args)
    assert table.exit_code == 0 and "matches" in table.stdout and "γ⁴ℓ²ζ²/4" in table.stdout


@pytest.mark.parametrize(("args", "argument"), [
    (["local-gda", "--set", "gamma=1/100", "mu=1", "ell=10", "K=2", "--sweep", "kappa"],
     "--sweep"),
    (["local-gda", "--set", "gamma=1/100", "mu=2", "ell=1", "K=2"], "--set ell"),
    (["local-gda", "--set", "gamma=1/100", "mu=1", "ell=10"], "--set"),
    (["local-gda.lipschitz", "--set", "gamma=1/100", "mu=1", "ell=10", "K=2"], "--set ell"),
])
def test_cli_bad_input_exits_2_naming_the_argument(args, argument):
    from fedbounds.app.cli import app

    result = CliRunner().invoke(app, ["pep", *args])
    assert result.exit_code == 2, result.output
    assert f"error: {argument}" in result.output
