"""The compiled FedDRO step and metrics on scalar families give numpy's numbers: the client sum
is numpy's pairwise summation bit for bit (any length), the fused x̄ and ‖∇Φ(x̄)‖² equal the
numpy oracles', and the in-place step equals the pure step with more than 128 clients (where
numpy's sum splits into halves); the compiled Theorem 4.1 round map gives Python's floats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedbounds.problems.feddro import ScalarRows, make
from fedbounds.verify.algorithms.feddro import FEDDRO, _pairwise_sum, history, observers
from fedbounds.verify.exact import feddro as feddro_exact


@pytest.mark.parametrize("n", [*range(1, 140), 255, 256, 257, 1000, 4097])
def test_pairwise_sum_is_numpys_client_sum(n: int) -> None:
    rng = np.random.default_rng(n)
    values = rng.standard_normal((4, n, 1)) * 10.0 ** rng.integers(-8, 8, (4, n, 1))
    want = np.add.reduce(values, axis=1)[:, 0]  # the executor's client sum, (R, K, 1)
    got = [_pairwise_sum(np.ascontiguousarray(values[r, :, 0]), 0, n) for r in range(4)]
    assert np.array_equal(np.array(got), want)


def numpy_metrics(problem, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x̄ = mean over clients and ‖∇Φ(x̄)‖² by the problem's numpy oracles."""
    xbar = x.mean(axis=1)
    return xbar[:, 0], np.add.reduce(problem.grad_Phi(xbar) ** 2, axis=-1)


@pytest.mark.parametrize(("name", "params"), [
    ("feddro-p1", {"K": 4, "s": 1.0}),
    ("feddro-p2", {"K": 8, "s": 0.0, "s_h": 0.0, "het": 0.25}),
    ("feddro-p2", {"K": 10, "s": 1.0, "s_h": 1.0}),
])
def test_fused_metrics_equal_the_numpy_oracles(name: str, params: dict) -> None:
    problem = make(name, params)
    x = np.random.default_rng(1).standard_normal((7, problem.K, 1)) * 3
    state = FEDDRO.method(problem, {"eta": 0.1}).init(7)._replace(x=x)
    table = observers(problem, "xbar", "grad_phi_sq")
    xbar, phi_sq = numpy_metrics(problem, x)
    assert np.array_equal(table["xbar"](state), xbar)
    assert np.array_equal(table["grad_phi_sq"](state), phi_sq)


def test_fused_metrics_on_stacked_rows() -> None:
    """Rows of different instances (ā, c̄, w, m per row) get each instance's numbers."""
    problems = [make("feddro-p2", {"K": 6, "A": a, "C": 0.5, "het": 0.5}) for a in (0.2, 0.7)]
    rows = ScalarRows(problems, 3)
    x = np.random.default_rng(2).standard_normal((6, 6, 1))
    state = FEDDRO.method(problems[0], {"eta": 0.1}).init(6)._replace(x=x)
    got = observers(rows, "grad_phi_sq")["grad_phi_sq"](state)
    want = np.concatenate([numpy_metrics(p, x[3 * i:3 * i + 3])[1]
                           for i, p in enumerate(problems)])
    assert np.array_equal(got, want)


def test_advance_with_many_clients_matches_step() -> None:
    """K = 130 > 128: the client sums (ȳ, averaging, the het mean) go through numpy's split."""
    problem = make("feddro-p2", {"K": 130, "s": 1.0, "s_h": 0.5, "het": 0.5})
    method = FEDDRO.method(problem, {"eta": 0.02, "beta": 0.3, "I": 2})
    fast = history(method, 12, replicas=2, seed=4)
    pure = history(method.pure(), 12, replicas=2, seed=4)
    for metric, reference in pure.metrics.items():
        assert np.array_equal(fast.metrics[metric], reference), metric
    for got, want in zip(fast.trace.state, pure.trace.state, strict=True):
        assert np.array_equal(got, want)


def python_rounds(case: str, I: int, eta: float, rounds: int, decay: bool,  # noqa: E741
                  literal: bool) -> tuple[list[float], tuple[float, float], int | None]:
    """Algorithm 1 on the Theorem 4.1 instance (g_1 = 4x − 4, g_2 = −2x + 4), Python floats."""
    xb = float(feddro_exact.X0)
    y = (xb, xb)
    traj = [xb]
    for r in range(rounds):
        x1 = x2 = xb
        for j in range(I):
            e = eta / math.sqrt(r * I + j + 1) if decay else eta
            if j == 0 and case == "II":
                u1 = u2 = xb
            elif j == 0 and literal:
                u1, u2 = y
            else:
                u1, u2 = 4.0 * x1 - 4.0, -2.0 * x2 + 4.0
            x1 = x1 - e * 4.0 * (u1 / (u1 * u1 + 4) ** 0.5)
            x2 = x2 - e * -2.0 * (u2 / (u2 * u2 + 4) ** 0.5)
        nxt = (x1 + x2) / 2
        if not math.isfinite(nxt) or abs(nxt) > feddro_exact.BLOWUP:
            return traj, y, r + 1
        xb, y = nxt, (4.0 * x1 - 4.0, -2.0 * x2 + 4.0)
        traj.append(xb)
    return traj, y, None


@pytest.mark.parametrize(("case", "literal"), [("I", False), ("I", True), ("II", False)])
@pytest.mark.parametrize("decay", [False, True])
@pytest.mark.parametrize(("I", "eta"), [(1, 0.3), (3, 0.05), (7, 2.0), (2, 1e3)])
def test_compiled_rounds_equal_python_floats(case: str, literal: bool, decay: bool, I: int,  # noqa: E741
                                             eta: float) -> None:
    """The compiled round map gives Python's floats bit for bit (its (·)^0.5 is libm's pow, as
    Python's), and stops where Python's loop stops."""
    run = feddro_exact.run_rounds(case, I, eta, 400, decay="sqrt" if decay else None,
                                  variant="literal" if literal else "proof")
    traj, y, stop = python_rounds(case, I, eta, 400, decay, literal)
    assert run.xbar == traj
    assert run.y == y
    assert run.diverged_at == stop


@pytest.mark.parametrize(("name", "params"), [
    ("feddro-p1", {"K": 6, "s": 0.5}),
    ("feddro-p2", {"K": 4, "s": 1.0, "s_h": 1.0}),
    ("feddro-p2", {"K": 4, "s": 0.0, "het": 0.25}),
])
def test_grid_constants_kept_by_their_inputs(name: str, params: dict) -> None:
    """An instance whose Δ_h and L_Φ come from the kept values of an earlier instance (other K
    or noise, the same ā, c̄, h) has the numbers its own grid computation gives."""
    make(name, {**params, "s": 2.0})  # the same key: kept values used
    make(name, {**params, "het": 1.0} if name == "feddro-p2" else {**params, "K": 2})
    problem = make(name, params)
    delta_h, l_phi = problem._grid_constants()
    assert problem.constants["Delta_h"] == delta_h
    assert problem.constants["L_Phi_true"] == l_phi
    assert l_phi > 0 and (delta_h > 0) == (name == "feddro-p2")
