"""The fused min-max kernels (verify/algorithms/minmax_kernels.py) give the numbers of the numpy
forms they replace bit for bit: each kernel against the numpy expression it fuses, and each
method's in-place ``advance`` that uses them against its pure ``step`` (FedSGDA-M's averaged
iterates measure rounding noise in fedsgda.p1, so equality is exact, not to a tolerance)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fedbounds.problems.minmax import PROBLEMS, MinMaxGame
from fedbounds.verify.algorithm import Algorithm, simulate
from fedbounds.verify.algorithms import minmax_kernels
from fedbounds.verify.algorithms.fedsgda import FEDSGDA_M

ENTRIES = {entry.name: entry for entry in PROBLEMS}
NOISY = {"M": 6, "sigma_x": 1.0, "sigma_y": 0.5, "sigma_G": 2.0}
GAMES = {
    "common Hessians": ("minmax-quadratic", NOISY),
    "heterogeneous Hessians": ("minmax-quadratic", {**NOISY, "hess_spread": 0.3}),
    "NC-C projection": ("minmax-ncc", NOISY),
    "cosine game": ("minmax-cos", NOISY),
}


def game(name: str) -> MinMaxGame:
    family, values = GAMES[name]
    entry = ENTRIES[family]
    return entry.make(entry.values(values), 4)


def assert_same_run(alg: Algorithm, g: MinMaxGame, config: dict[str, Any], rounds: int) -> None:
    """``advance`` and ``step`` runs (same seed) have equal states and metrics, bit for bit."""
    method = alg.method(g, config)
    pure = method.pure()
    fast = simulate(method, rounds, replicas=3, seed=11)
    reference = simulate(pure, rounds, replicas=3, seed=11)
    assert not reference.diverged
    for name, a, b in zip(reference.state._fields, fast.state, reference.state, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)
    for name in reference.metrics:
        np.testing.assert_array_equal(fast.metrics[name], reference.metrics[name], err_msg=name)


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("Q", [1, 4], ids=["sync every step", "Q=4"])
def test_fedsgda_m_fused_advance_is_step_bit_for_bit(name, Q):
    config = {"c_hat": 0.2, "c": 0.5, "eta": 0.1, "alpha": 0.3, "beta": 0.6, "Q": Q, "b": 2.0,
              "B": 4.0}
    assert_same_run(FEDSGDA_M, game(name), config, 23)


def storm_numpy(u, grad_old, grad_new, noise, scale, keep):
    shift = noise * scale
    return (grad_new + shift) + keep * (u - (grad_old + shift))


def test_storm_kernels_are_the_numpy_expressions():
    rng = np.random.default_rng(7)
    R, N, d = 3, 5, 4
    z, u, grad_old, grad_new, noise = (rng.standard_normal((R, N, d)) for _ in range(5))
    s, scale, keep = rng.random(d), rng.random(d), rng.random(d)

    w, u_mean = np.empty((R, d)), np.empty((R, d))
    minmax_kernels.storm_sync_means(z, u, s, w, u_mean)
    np.testing.assert_array_equal(w, (z - s * u).mean(1))
    np.testing.assert_array_equal(u_mean, u.mean(1))

    moved = z.copy()
    minmax_kernels.storm_local_move(moved, u, s)
    np.testing.assert_array_equal(moved, z - s * u)

    out, z_mean = np.empty((R, N, d)), np.empty((R, d))
    minmax_kernels.storm_update(u, grad_old, grad_new, noise, scale, keep, z, out, z_mean)
    np.testing.assert_array_equal(out, storm_numpy(u, grad_old, grad_new, noise, scale, keep))
    np.testing.assert_array_equal(z_mean, z.mean(1))

    grad_w, h = rng.standard_normal((R, d)), rng.standard_normal((N, d))
    grad, z_out, u_out = grad_old.copy(), np.empty((R, N, d)), np.empty((R, N, d))
    minmax_kernels.storm_sync_update(w, u_mean, grad_w, h, noise, scale, keep, grad, z_out,
                                     u_out, z_mean)
    expected_grad = grad_w[:, None] + h
    np.testing.assert_array_equal(grad, expected_grad)
    np.testing.assert_array_equal(z_out, np.repeat(w[:, None], N, 1))
    np.testing.assert_array_equal(z_mean, z_out.mean(1))
    np.testing.assert_array_equal(
        u_out, storm_numpy(u_mean[:, None], grad_old, expected_grad, noise, scale, keep))
