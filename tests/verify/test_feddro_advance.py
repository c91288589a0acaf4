"""FedDRO's in-place step (``Method.advance`` on the scalar families) gives the iterates of the
pure ``step`` bit for bit, and of a straightforward one-replica, one-client-at-a-time
implementation of Algorithm 2 (estimator (8), local step (7), averaging every I) to 1e-12
relative: noisy, batched, independent batches, heterogeneous h_k (het ≠ 1), decaying steps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedbounds.problems.feddro import ScalarFamily, make
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.feddro import (
    FEDDRO,
    MODIFIED_FEDAVG,
    history,
    observers,
    run_feddro,
    run_feddro_many,
)
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
        pure = history(method.pure(), 60, replicas=5, seed=3,
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


def _p2(**params: float) -> ScalarFamily:
    return make("feddro-p2", {"K": 8, "A": 0.5, "C": 0.5, "s": 0.0, "s_h": 0.0, **params})


def _p1(**params: float) -> ScalarFamily:
    return make("feddro-p1", {"K": 2, "A": 0.5, "C": 0.5, "s": 1.0, **params})


@pytest.mark.parametrize(("runs", "replicas", "metrics"), [
    ([(_p2(het=a), 120, {"eta": 0.01, "beta": 0.5, "I": steps}) for a in (0.125, 0.25, 1.0)
      for steps in (16, 1)], 1, ("grad_phi_sq",)),
    ([(_p2(het=0.25), 90, {"eta": 0.02, "beta": 0.3, "I": 2}),
      (_p2(het=2.0), 150, {"eta": 0.01, "beta": 0.9, "I": 3, "decay_sqrt": 1})], 1,
     ("grad_phi_sq", "track", "xbar")),
    ([(_p1(), 100, {"eta": eta, "beta": 0.2, "batch_independent": k}) for eta in (0.005, 0.05)
      for k in (0, 1)], 4, ("grad_phi_sq", "track")),
    ([(_p1(), T, {"T": T}) for T in (40, 80)] + [(_p1(K=4), 60, {"T": 60, "I": 2}),
                                                 (_p2(s=1.0, s_h=1.0), 50, {"T": 50, "I": 4})],
     3, ("grad_phi_sq", "drift", "Phi", "dist_sq")),
])
def test_runs_side_by_side_match_runs_alone(runs: list, replicas: int, metrics: tuple) -> None:
    """run_feddro_many (instances stacked by rows, different η, β, I, horizons, batches)
    gives every run's metrics bit for bit as run_feddro one run at a time."""
    together = run_feddro_many(runs, replicas, 2, metrics)
    for (problem, iterations, values), shared in zip(runs, together, strict=True):
        alone = run_feddro(problem, iterations, replicas, 2, metrics, **values)
        assert shared.diverged == alone.diverged
        assert shared.metrics.keys() == alone.metrics.keys()
        for metric, reference in alone.metrics.items():
            np.testing.assert_array_equal(shared.metrics[metric], reference, err_msg=metric)


def test_diverging_runs_side_by_side_fall_back_to_runs_alone() -> None:
    """A shared run that diverges is redone per run: each reports its own divergence."""
    runs = [(_p2(het=0.5), 80, {"eta": eta, "beta": 0.5, "I": 2}) for eta in (0.01, 1e200)]
    metrics = ("grad_phi_sq", "xbar")  # x̄ leaves the blow-up bound 1e100 at η = 1e200
    together = run_feddro_many(runs, 1, 0, metrics)
    alone = [run_feddro(p, n, 1, 0, metrics, **v) for p, n, v in runs]
    assert together[0].diverged is None and alone[1].diverged is not None
    for shared, own in zip(together, alone, strict=True):
        assert shared.diverged == own.diverged
        for metric in metrics:
            np.testing.assert_array_equal(shared.metrics[metric], own.metrics[metric])
