"""The executor's in-place steps (``Method.advance``: client-major buffers, chunks of replicas,
averaging through a mask) give the iterates of a straightforward implementation of
ProxSkip-VIP-FL (Alg. 2 of ProxSkip-VIP, as ``verify.algorithms.proxskip`` documents it:
x̂_i = x_i − γ(g_i − h_i); on a coin x_i = mean_j(x̂_j − (γ/p)h_j), h_i += (p/γ)(x_i − x̂_i))
and of Local GDA (H steps x_i −= γ f_i(x_i), then the mean), replica by replica and client by
client, to 1e-12 relative; and the same numbers, bit for bit, as the pure ``step``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedbounds.problems.proxskip import AffineVIP, g_norm, quadratic_game, with_noise
from fedbounds.verify import executor
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.proxskip import coin as proxskip_coin
from fedbounds.verify.algorithms.proxskip import local_method, proxskip_method
from fedbounds.verify.executor import generators

RTOL = 1e-12


def reference_proxskip(problem: AffineVIP, gamma: float, p: float, iterations: int,
                       replicas: int, seed: int, noisy: bool) -> tuple[np.ndarray, np.ndarray]:
    """Alg. 2 one replica and one client at a time, from x_0 = h_0 = 0, on the executor's
    streams (``coin``: θ_t per replica; ``noise``: ξ per replica and client)."""
    n, d = problem.n, problem.d
    rngs = generators(seed, ["coin", "noise"] if noisy else ["coin"])
    x = np.zeros((replicas, n, d))
    h = np.zeros((replicas, n, d))
    for _ in range(iterations):
        theta = rngs["coin"].random(replicas) < p
        if noisy:
            scale = problem.noise.std / math.sqrt(d)
            xi = rngs["noise"].standard_normal((replicas, n, d)) * scale[:, None]
        for r in range(replicas):
            xhat = np.empty((n, d))
            for i in range(n):
                g = problem.J[i] @ x[r, i] + problem.b[i] + (xi[r, i] if noisy else 0.0)
                xhat[i] = x[r, i] - gamma * (g - h[r, i])
            if theta[r]:
                avg = sum(xhat[i] - (gamma / p) * h[r, i] for i in range(n)) / n
                for i in range(n):
                    h[r, i] = h[r, i] + (p / gamma) * (avg - xhat[i])
                    x[r, i] = avg
            else:
                x[r] = xhat
    return x, h


def reference_local_gda(problem: AffineVIP, gamma: float, H: int, rounds: int) -> np.ndarray:
    """Local GDA, one client at a time: H steps x_i −= γ(J_i x_i + b_i), then the mean."""
    x = np.zeros((problem.n, problem.d))
    for _ in range(rounds):
        for i in range(problem.n):
            for _ in range(H):
                x[i] = x[i] - gamma * (problem.J[i] @ x[i] + problem.b[i])
        x[:] = x.mean(axis=0)
    return x


def relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


@pytest.fixture(params=[10**9, 40], ids=["one block", "blocks of replicas"])
def chunking(request, monkeypatch):
    """Every replica in one block, or blocks of two or three replicas (40 numbers per array:
    several blocks and a shorter last one)."""
    monkeypatch.setattr(executor, "BLOCK_NUMBERS", request.param)
    return request.param


@pytest.mark.parametrize("record_every", [1, 7], ids=["step by step", "steps between records"])
@pytest.mark.parametrize("p", [0.05, 0.5, 1.0], ids=["few communicate", "half", "all"])
@pytest.mark.parametrize("noisy", [False, True], ids=["gda", "sgda"])
def test_proxskip_matches_the_per_client_reference(chunking, p, noisy, record_every):
    """Record every step (``advance``), or every 7 steps (``advance_steps``: blocks of
    replicas through 7 steps, and a last run of 5)."""
    problem = g_norm(n=4, d=4, seed=2)
    if noisy:
        problem = with_noise(problem, 0.3)
    gamma, iterations, replicas = 0.1, 40, 9
    method = proxskip_method(problem, gamma, p, "sgda" if noisy else "gda")
    assert method.advance is not None and method.advance_steps is not None
    trace = simulate(method, iterations, replicas=replicas, seed=5, record_every=record_every)
    assert list(trace.iterations) == sorted({*range(0, iterations, record_every), iterations})
    x, h = reference_proxskip(problem, gamma, p, iterations, replicas, 5, noisy)
    assert relative(trace.state.x, x) <= RTOL
    assert relative(trace.state.h, h) <= RTOL
    assert np.abs(h).max() > 0 or p == 1.0 or not trace.communications[-1].any()


def test_local_gda_matches_the_per_client_reference(chunking):
    problem = quadratic_game(n=3, m=2, d=4, seed=1)
    trace = simulate(local_method(problem, 0.2, 3), 25, replicas=5)
    x = reference_local_gda(problem, 0.2, 3, 25)
    for r in range(5):
        assert relative(trace.state.x[r], x) <= RTOL


@pytest.mark.parametrize("estimator", ["gda", "sgda"])
def test_in_place_steps_give_the_pure_steps_numbers_bit_for_bit(estimator):
    """Unchunked, bit for bit (a chunk changes the batched matmul's row count, and BLAS may
    round a different row count differently in the last bit: chunks are held to 1e-12 above)."""
    problem = with_noise(quadratic_game(n=5, m=2, d=6, seed=3), 0.5)
    for method in (proxskip_method(problem, 0.3, 0.6, estimator),
                   local_method(problem, 0.3, 2, estimator=estimator)):
        pure = method.pure()
        a = simulate(method, 30, replicas=11, seed=7, record_every=4)
        b = simulate(pure, 30, replicas=11, seed=7, record_every=4)
        for u, v in zip(a.state, b.state, strict=True):
            np.testing.assert_array_equal(u, v)
        for name in b.metrics:
            np.testing.assert_array_equal(a.metrics[name], b.metrics[name])
        np.testing.assert_array_equal(a.communications, b.communications)


def test_local_gda_distance_summed_by_the_round_is_the_metric_of_any_state():
    """Local GDA's round sums Σ_i‖x_i − z*‖² as it writes the mean; the metric gives those
    numbers for the state the round returned and measures any other state itself."""
    from fedbounds.verify.algorithms.proxskip import ConsensusState, sq_distance

    problem = with_noise(quadratic_game(n=4, m=2, d=6, seed=2), 0.3)
    method = local_method(problem, 0.3, 2, estimator="sgda")
    trace = simulate(method, 9, replicas=6, seed=1)
    z = np.broadcast_to(problem.z_star, (problem.n, problem.d))
    dist_sq = method.observe["dist_sq"]
    np.testing.assert_array_equal(dist_sq(trace.state), sq_distance(trace.state.x, z))
    np.testing.assert_array_equal(trace.metrics["dist_sq"][-1], sq_distance(trace.state.x, z))
    other = ConsensusState(trace.state.x + 1.0)  # not a state the round returned
    np.testing.assert_array_equal(dist_sq(other), sq_distance(other.x, z))
    assert not np.array_equal(dist_sq(other), dist_sq(trace.state))


def test_a_given_start_state_is_not_modified():
    problem = g_norm(n=3, d=2, seed=0)
    method = proxskip_method(problem, 0.2, 0.5)
    start = method.init(4, 0)
    start.x[...] = 1.0
    before = [a.copy() for a in start]
    trace = simulate(method, 10, replicas=4, state=start)
    for a, b in zip(start, before, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(trace.state.x, start.x)


@pytest.mark.parametrize("record_every", [1, 3, 8])
def test_blow_up_is_found_at_the_same_record_with_steps_at_once(record_every):
    """A step size far beyond the theorem's blows up: the in-place steps, one by one or several
    between records, stop at the same record with the same reason and records as the pure
    steps."""
    problem = g_norm(n=3, d=4, seed=4)
    method = proxskip_method(problem, 50.0, 0.3)
    pure = method.pure()
    a = simulate(method, 400, replicas=5, seed=2, record_every=record_every, blowup=1e12)
    b = simulate(pure, 400, replicas=5, seed=2, record_every=record_every, blowup=1e12)
    assert a.diverged and b.diverged
    assert (a.diverged_at, a.reason) == (b.diverged_at, b.reason)
    np.testing.assert_array_equal(a.iterations, b.iterations)
    for name in b.metrics:
        np.testing.assert_array_equal(a.metrics[name], b.metrics[name])
    np.testing.assert_array_equal(a.communications, b.communications)


def test_coin_draws_of_several_steps_are_the_single_steps_draws():
    """``coin(p).steps`` (one generator call for the steps between two records) gives the
    numbers of that many single draws, and the executor uses it."""
    draw = proxskip_coin(0.37)
    one, many = generators(11, ["coin"])["coin"], generators(11, ["coin"])["coin"]
    singles = np.stack([draw(one, 13) for _ in range(9)])
    np.testing.assert_array_equal(executor.draws_of_steps(draw, many, 13, 9), singles)
    np.testing.assert_array_equal(draw(one, 13), draw(many, 13))  # both streams in step after
    plain = lambda rng, replicas: rng.random(replicas)  # noqa: E731 (a stream without .steps)
    assert isinstance(executor.draws_of_steps(plain, one, 3, 4), list)
