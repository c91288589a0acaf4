"""FedDRO's in-place step (``Method.advance`` on the scalar families) gives the iterates of the
pure ``step`` bit for bit, and of a straightforward one-replica, one-client-at-a-time
implementation of Algorithm 2 (estimator (8), local step (7), averaging every I) to 1e-12
relative: noisy, batched, independent batches, heterogeneous h_k (het ≠ 1), decaying steps."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from fedbounds.problems.feddro import ScalarFamily, make
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.feddro import FEDDRO, MODIFIED_FEDAVG, history, observers
from fedbounds.verify.executor import generators

RTOL = 1e-12

CASES = [
    ("feddro-p1", {"K": 2, "s": 1.0}, {"eta": 0.05, "beta": 0.4, "I": 1}),
    ("feddro-p1", {"K": 4, "s": 1.0, "A": 3.0, "C": 4.0},
     {"eta": 0.05, "beta": 0.2, "I": 3, "b": 2, "batch_independent": 1}),
    ("feddro-p2", {"K": 8, "s": 0.0, "s_h": 0.0, "het": 0.25}, {"eta": 0.02, "beta": 0.3, "I": 4}),
    ("feddro-p2", {"K": 4, "s": 1.0, "s_h": 1.0, "het": 2.0},
     {"eta": 0.02, "beta": 0.5, "I": 2, "decay_sqrt": 1, "ybar0_offset": 0.3}),
    ("feddro-counterexample", {}, {"eta": 0.04, "beta": 0.3, "I": 2}),
]


def reference_feddro(problem: ScalarFamily, eta: float, beta: float, I: int, b: int,  # noqa: E741
                     independent: bool, decay: bool, offset: float, iterations: int,
                     replicas: int, seed: int) -> np.ndarray:
    """Algorithm 2 on a scalar family, one replica and one client at a time, on the executor's
    streams (``g``: (ζ₁, ζ₂) per replica and client, ``g_grad`` the independent ∇g batch,
    ``h``: ξ); returns x after ``iterations`` steps, (replicas, K)."""
    K, s, s_h = problem.K, problem.s, problem.s_h
    names = ["g", "h"] + (["g_grad"] if independent else [])
    rngs = generators(seed, names)
    x = np.full((replicas, K), float(problem.x0[0]))
    x_prev = x.copy()
    ybar = np.full(replicas, float(problem.g(problem.x0)[0]) + offset)

    def grad_h(k: int, v: float) -> float:
        """∇h_k(v) with every client deviation scaled by het (P2)."""
        def one(j: int) -> float:
            u = v - problem.m[j]
            return problem.w[j] * u / math.sqrt(u * u + 1)
        mean = sum(one(j) for j in range(K)) / K
        return mean + problem.het * (one(k) - mean)

    for t in range(iterations):
        zeta = rngs["g"].standard_normal((2, replicas, K)) / math.sqrt(b) if s > 0 else None
        xi = rngs["h"].standard_normal((replicas, K)) / math.sqrt(b) if s_h > 0 else None
        zg = rngs["g_grad"].standard_normal((2, replicas, K)) / math.sqrt(b) \
            if independent and s > 0 else zeta
        step = eta / math.sqrt(t + 1) if decay else eta
        new = np.empty_like(x)
        for r in range(replicas):
            if t > 0:
                total = 0.0
                for k in range(K):
                    z1, z2 = (zeta[0, r, k], zeta[1, r, k]) if zeta is not None else (0.0, 0.0)
                    g_prev = problem.a[k] * x_prev[r, k] + problem.c[k] + s * (z1 * x_prev[r, k]
                                                                                + z2)
                    g_now = problem.a[k] * x[r, k] + problem.c[k] + s * (z1 * x[r, k] + z2)
                    total += (1 - beta) * (ybar[r] - g_prev) + g_now
                ybar[r] = total / K
            grad_f = ybar[r] / math.sqrt(ybar[r] ** 2 + 4)
            for k in range(K):
                jac = problem.a[k] + (s * zg[0, r, k] if zg is not None else 0.0)
                noise = s_h * xi[r, k] if xi is not None else 0.0
                new[r, k] = x[r, k] - step * (grad_h(k, x[r, k]) + noise + jac * grad_f)
            if (t + 1) % I == 0:
                new[r] = new[r].mean()
        x_prev, x = x, new
    return x


@pytest.mark.parametrize(("name", "params", "values"), CASES)
def test_advance_matches_step_bit_for_bit(name: str, params: dict, values: dict) -> None:
    """Every metric and the final state of the in-place run equal the pure step's exactly."""
    problem = make(name, params)
    for algorithm in (FEDDRO, MODIFIED_FEDAVG):
        given = {k: v for k, v in values.items() if algorithm is FEDDRO or k != "beta"}
        method = algorithm.method(problem, given)
        assert method.advance is not None
        observe = observers(problem, "grad_phi_sq", "dist_sq", "track", "Phi", "drift", "xbar")
        fast = history(method, 60, replicas=5, seed=3, observe=observe)
        pure = history(dataclasses.replace(method, advance=None), 60, replicas=5, seed=3,
                       observe=observe)
        for metric, reference in pure.metrics.items():
            np.testing.assert_array_equal(fast.metrics[metric], reference, err_msg=metric)
        for a, b in zip(fast.trace.state, pure.trace.state, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("name", "params", "values"), CASES)
def test_advance_matches_reference_algorithm(name: str, params: dict, values: dict) -> None:
    """The in-place run's x after 40 iterations equals Algorithm 2 written out per client."""
    problem = make(name, params)
    config = FEDDRO.config(values)
    method = FEDDRO.method(problem, values)
    trace = simulate(method, 40, replicas=3, seed=5)
    expected = reference_feddro(problem, config["eta"], config["beta"], config["I"],
                                config["b"], bool(config["batch_independent"]),
                                bool(config["decay_sqrt"]), config["ybar0_offset"], 40, 3, 5)
    np.testing.assert_allclose(trace.state.x[..., 0], expected, rtol=RTOL, atol=1e-14)
