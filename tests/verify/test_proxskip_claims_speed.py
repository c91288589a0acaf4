"""The speed-ups behind the ProxSkip-VIP-FL claims give the same numbers: the exact second-moment
recursion on preallocated buffers (and without the zero term at p = 1) equals the recursion
written as the expression Σ ← p(T_1ΣT_1ᵀ) + (1 − p)(T_0ΣT_0ᵀ) (+ N), bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedbounds.problems.proxskip import kappa_family
from fedbounds.verify.exact import proxskip as exact


def expression_curve(maps: exact.LinearMaps, e0: np.ndarray, steps: int,
                     Q: np.ndarray | None = None, stop_below: float | None = None) -> np.ndarray:
    """E[V_t] by the recursion as written, one new matrix per product."""
    S = np.outer(e0, e0)
    p = maps.p
    N = None if Q is None else (p * maps.G1 @ Q @ maps.G1.T
                                + (1 - p) * maps.G0 @ Q @ maps.G0.T)
    out = [float(np.dot(maps.W, np.diag(S)))]
    for _ in range(steps):
        S = p * (maps.T1 @ S @ maps.T1.T) + (1 - p) * (maps.T0 @ S @ maps.T0.T)
        if N is not None:
            S = S + N
        out.append(float(np.dot(maps.W, np.diag(S))))
        if (stop_below is not None and out[-1] <= stop_below) or not math.isfinite(out[-1]):
            break
    return np.array(out)


@pytest.mark.parametrize("p", [1.0, 0.3])
@pytest.mark.parametrize("noise", [False, True])
def test_expected_v_is_the_expression(p: float, noise: bool) -> None:
    prob = kappa_family("g-norm-shared", 8.0, 0)
    maps = exact.proxskip_maps(prob, 0.01, p)
    e0 = exact.initial_error(prob)
    Q = 0.3 * np.eye(maps.G0.shape[1]) if noise else None
    got = exact._expected_V(maps, e0, 400, None, Q, None)
    want = expression_curve(maps, e0, 400, Q)
    assert got.shape == want.shape == (401,)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("p", [1.0, 0.5])
def test_hitting_time_curve_is_the_expression(p: float) -> None:
    prob = kappa_family("g-norm-shared", 4.0, 1)
    maps = exact.proxskip_maps(prob, 0.02, p)
    e0 = exact.initial_error(prob)
    eps = 1e-3
    t_eps, curve = exact.hitting_time(maps, e0, eps, 5000)
    want = expression_curve(maps, e0, 5000, stop_below=eps * maps.V(e0))
    assert curve.tobytes() == want.tobytes()
    assert t_eps == want.size - 1 and want[-1] <= eps * maps.V(e0) < want[-2]


def test_diverging_recursion_at_p1_ends_like_the_expression() -> None:
    """A step far above the stability threshold: the curve overflows, and its last (non-finite)
    value is the expression's (0·inf = NaN where the zero term is kept)."""
    prob = kappa_family("g-norm-shared", 4.0, 0)
    maps = exact.proxskip_maps(prob, 50.0, 1.0)
    e0 = exact.initial_error(prob)
    with np.errstate(all="ignore"):
        got = exact._expected_V(maps, e0, 2000, None, None, None)
        want = expression_curve(maps, e0, 2000)
    assert got.size == want.size < 2001
    assert not math.isfinite(got[-1])
    np.testing.assert_array_equal(got, want)
