"""The in-place steps (``Method.advance``) of the federated min-max methods give the iterates of
their pure ``step`` (the readable reference), to 1e-12 relative, on small games with several
replicas: common and heterogeneous Hessians, additive and multiplicative (β_L) noise, the NC-C
projection and the cosine (nonconvex) game, full and partial participation, heterogeneous local
steps, momentum and the snapshot ("+") variants."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from fedbounds.problems.minmax import PROBLEMS, MinMaxGame
from fedbounds.verify.algorithm import Algorithm, simulate
from fedbounds.verify.algorithms.fednorm import (
    FEDNORM_SGDA,
    FEDNORM_SGDA_PLUS,
    LOCAL_SGDA,
    LOCAL_SGDA_PLUS,
)
from fedbounds.verify.algorithms.fedsgda import FEDSGDA_M, FEDSGDA_PLUS
from fedbounds.verify.algorithms.sagda import FSGDA, SAGDA_I, SAGDA_II
from fedbounds.verify.executor import client_mean

RTOL = 1e-12
ROUNDS = 17
REPLICAS = 3
ENTRIES = {entry.name: entry for entry in PROBLEMS}
NOISY = {"M": 5, "sigma_x": 1.0, "sigma_y": 0.5, "sigma_G": 2.0}
GAMES = {
    "common Hessians, noise-free": ("minmax-quadratic", {"M": 5, "sigma_G": 2.0}),
    "common Hessians, additive noise": ("minmax-quadratic", NOISY),
    "heterogeneous Hessians": ("minmax-quadratic", {**NOISY, "hess_spread": 0.3}),
    "multiplicative noise": ("minmax-quadratic", {**NOISY, "beta_L": 0.5}),
    "NC-C projection": ("minmax-ncc", NOISY),
    "cosine game": ("minmax-cos", NOISY),
}


def game(name: str) -> MinMaxGame:
    family, values = GAMES[name]
    entry = ENTRIES[family]
    return entry.make(entry.values(values), 3)


def relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def assert_advance_is_step(alg: Algorithm, g: MinMaxGame, config: dict[str, Any]) -> None:
    """The run through ``advance`` and the run through ``step`` (same seed, same streams) have
    the same final state and the same recorded metrics, to RTOL."""
    method = alg.method(g, config)
    assert method.advance is not None
    pure = method.pure()
    # the server model at every other step (the NC-C game's own ∇Φ is a solve per record)
    observe = {f"z[{j}]": (lambda st, j=j: st.z[:, j]) for j in range(g.d)}
    fast = simulate(method, ROUNDS, replicas=REPLICAS, seed=5, record_every=2, observe=observe)
    reference = simulate(pure, ROUNDS, replicas=REPLICAS, seed=5, record_every=2,
                         observe=observe)
    assert not reference.diverged
    assert type(fast.state) is type(reference.state)
    for name, a, b in zip(reference.state._fields, fast.state, reference.state, strict=True):
        assert a.shape == b.shape, name
        assert relative(a, b) <= RTOL, name
    for name in reference.metrics:
        assert relative(fast.metrics[name], reference.metrics[name]) <= RTOL, name
    np.testing.assert_array_equal(fast.communications, reference.communications)


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("Q", [1, 3], ids=["sync every step", "Q=3"])
def test_fedsgda_m_advance_is_step(name, Q):
    config = {"c_hat": 0.2, "c": 0.5, "eta": 0.1, "alpha": 0.3, "beta": 0.6, "Q": Q, "b": 2.0,
              "B": 4.0}
    assert_advance_is_step(FEDSGDA_M, game(name), config)


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("Q, S", [(1, 3), (3, 2)], ids=["Q=1", "Q=3"])
def test_fedsgda_plus_advance_is_step(name, Q, S):
    config = {"c_hat": 0.02, "c": 0.05, "eta_x": 0.5, "eta_y": 2.0, "Q": Q, "S": S, "b": 2.0}
    assert_advance_is_step(FEDSGDA_PLUS, game(name), config)


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("alg", [FSGDA, SAGDA_I, SAGDA_II], ids=lambda a: a.name)
@pytest.mark.parametrize("m", [2, 0], ids=["m=2 sampled", "all clients"])
def test_sagda_advance_is_step(name, alg, m):
    config = {"K": 3, "m": m, "eta_xl": 0.05, "eta_yl": 0.04, "eta_xg": 1.0, "eta_yg": 1.5}
    assert_advance_is_step(alg, game(name), config)


@pytest.mark.parametrize("name", ["common Hessians, additive noise", "heterogeneous Hessians"])
@pytest.mark.parametrize("alg", [SAGDA_I, SAGDA_II], ids=lambda a: a.name)
@pytest.mark.parametrize("m", [2, 0], ids=["m=2 sampled", "all clients"])
def test_sagda_advance_is_step_bit_for_bit(name, alg, m):
    """SAGDA's in-place step (∇f_i(z_t) of the control variates reused as the first local
    step's product) gives step's iterates exactly: sagda.p2/p7/p12 measure rounding noise."""
    g = game(name)
    config = {"K": 3, "m": m, "eta_xl": 0.05, "eta_yl": 0.04, "eta_xg": 1.0, "eta_yg": 1.5}
    method = alg.method(g, config)
    fast = simulate(method, ROUNDS, replicas=REPLICAS, seed=5)
    reference = simulate(method.pure(), ROUNDS, replicas=REPLICAS,
                         seed=5)
    for a, b in zip(fast.state, reference.state, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fast.metrics["grad_phi_sq"], reference.metrics["grad_phi_sq"])


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("alg", [LOCAL_SGDA, LOCAL_SGDA_PLUS, FEDNORM_SGDA, FEDNORM_SGDA_PLUS],
                         ids=lambda a: a.name)
@pytest.mark.parametrize("config", [{"tau": 3, "P": 2, "S": 2, "eta_cx": 0.05},
                                    {"tau": 2, "tau_max": 5, "P": 0, "rho": 0.5}],
                         ids=["P=2 sampled", "heterogeneous tau, momentum"])
def test_fednorm_advance_is_step(name, alg, config):
    assert_advance_is_step(alg, game(name), config)


def test_the_games_have_the_features_they_are_named_for():
    assert np.all(game("common Hessians, noise-free").H == game("common Hessians, noise-free").H[0])
    assert not game("common Hessians, noise-free").noisy
    hetero = game("heterogeneous Hessians").H
    assert not np.allclose(hetero, hetero[0])
    assert game("multiplicative noise").beta_L > 0
    assert game("NC-C projection").radius is not None
    assert game("cosine game").lam != 0


def test_the_comparison_can_fail():
    """A method whose advance takes a different step size is caught (the guard is not vacuous)."""
    g = game("common Hessians, additive noise")
    config = {"c_hat": 0.2, "c": 0.5, "eta": 0.1, "alpha": 0.3, "beta": 0.6, "Q": 3}
    method = FEDSGDA_M.method(g, config)
    other = FEDSGDA_M.method(g, {**config, "eta": 0.1 * (1 + 1e-9)})
    mixed = dataclasses.replace(method, advance=other.advance)
    fast = simulate(mixed, ROUNDS, replicas=REPLICAS, seed=5)
    reference = simulate(method.pure(), ROUNDS, replicas=REPLICAS,
                         seed=5)
    assert relative(fast.state.z, reference.state.z) > RTOL


@pytest.mark.parametrize("family", [entry.name for entry in PROBLEMS])
@pytest.mark.parametrize("weighted", [False, True], ids=["own weights", "other weights"])
def test_grad_phi_sq_map_is_grad_phi_sq(family, weighted):
    """The recorded metric's closure (affine part taken once) gives grad_phi_sq's numbers."""
    entry = ENTRIES[family]
    g = entry.make(entry.values({"M": 4}), 1)
    weights = np.array([0.1, 0.2, 0.3, 0.4]) if weighted else None
    x = np.random.default_rng(0).standard_normal((7, g.dx))
    expected = g.grad_phi_sq(x, weights)
    assert np.all(expected > 0)
    np.testing.assert_array_equal(g.grad_phi_sq_map(weights)(x), expected)


def test_client_mean_is_mean_bit_for_bit():
    """The client mean of the in-place steps sums in numpy's order (the same numbers as
    ``mean(axis=1)``) for the shapes the methods use, values spread over six decades."""
    rng = np.random.default_rng(0)
    for replicas, clients, dim in [(1, 7, 1), (3, 10, 1), (1, 1, 2), (3, 7, 2), (8, 144, 4),
                                   (32, 10, 2), (5, 64, 5), (2, 300, 16)]:
        values = rng.standard_normal((replicas, clients, dim)) * 10 ** rng.uniform(
            -3, 3, (replicas, clients, dim))
        np.testing.assert_array_equal(client_mean(values), values.mean(axis=1))
