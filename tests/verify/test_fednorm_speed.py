"""The compiled Fed-Norm round (verify/algorithms/fednorm_kernels.py) behind ``advance`` of Local
SGDA(+) and Fed-Norm-SGDA(+) gives the iterates of the readable numpy ``step`` to 1e-12 relative
(its gradient products sum in index order where numpy's matmul uses BLAS), on the features the
claims combine; games with multiplicative noise keep the numpy round. The exact affine rounds of
every client set computed at once are those of each set alone, and the local iterates read off one
run are those of the runs cut at every k, bit for bit."""

from __future__ import annotations

import dataclasses
import math
from itertools import combinations

import numpy as np
import pytest

from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.fednorm import (
    FEDNORM_SGDA,
    FEDNORM_SGDA_PLUS,
    LOCAL_SGDA,
    LOCAL_SGDA_PLUS,
)
from fedbounds.verify.claims.fednorm_lemmas import local_iterates
from fedbounds.verify.exact import fednorm as exact
from fedbounds.verify.minmax import local_steps

RTOL = 1e-12
NOISY = {"M": 6, "sigma_x": 1.0, "sigma_y": 0.5, "sigma_G": 2.0}
GAMES = {
    "additive noise, common Hessians": ("minmax-quadratic", NOISY),
    "heterogeneous Hessians, dx = 3, dy = 2": ("minmax-quadratic",
                                               {**NOISY, "hess_spread": 0.4, "dx": 3}),
    "noise-free": ("minmax-quadratic", {"M": 6, "sigma_G": 1.0}),
    "NC-C ball and cosine term": ("minmax-ncc", {**NOISY, "lam": 1.0, "radius": 1.0}),
}
CONFIGS = {
    "sampled, heterogeneous tau, momentum": {"tau": 2, "tau_max": 6, "P": 3, "rho": 0.6, "S": 3,
                                             "eta_cx": 0.04, "eta_cy": 0.03},
    "all clients, equal tau, server steps": {"tau": 4, "P": 0, "S": 2, "eta_cx": 0.02,
                                             "gamma_sx": 0.05, "gamma_sy": 0.08},
}


def relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("family, values", list(GAMES.values()), ids=list(GAMES))
@pytest.mark.parametrize("alg", [LOCAL_SGDA, LOCAL_SGDA_PLUS, FEDNORM_SGDA, FEDNORM_SGDA_PLUS],
                         ids=lambda a: a.name)
def test_fused_round_gives_the_iterates_of_step(alg, family, values, config):
    g = make_game(values, 4, family)
    method = alg.method(g, CONFIGS[config])
    assert method.advance is not None and method.advance.__name__ == "advance_fused"
    observe = {"z": lambda st: st.z[:, 0], "last": lambda st: st.z[:, -1]}
    fast = simulate(method, 40, replicas=5, seed=2, record_every=3, observe=observe)
    pure = method.pure()
    reference = simulate(pure, 40, replicas=5, seed=2, record_every=3, observe=observe)
    assert not reference.diverged and not fast.diverged
    assert float(np.max(np.abs(reference.state.z - reference.metrics["z"][0][:, None]))) > 1e-3
    for field, a, b in zip(reference.state._fields, fast.state, reference.state, strict=True):
        assert a.shape == b.shape, field
        assert relative(a, b) <= RTOL, field
    for name in reference.metrics:
        assert relative(fast.metrics[name], reference.metrics[name]) <= RTOL, name


def test_fused_round_from_a_given_state_leaves_it_unchanged():
    """``simulate`` from a caller's state (as stationary_floor does) hands the fused round a
    copy: the caller's array is not overwritten, and the run matches ``step``'s."""
    g = make_game(NOISY, 1)
    method = FEDNORM_SGDA.method(g, {"tau": 3, "P": 2})
    start = method.init(4, 0)._replace(z=np.tile(g.z_star(), (4, 1)))
    kept = start.z.copy()
    fast = simulate(method, 25, replicas=4, seed=3, state=start)
    np.testing.assert_array_equal(start.z, kept)
    pure = method.pure()
    reference = simulate(pure, 25, replicas=4, seed=3, state=start)
    assert relative(fast.state.z, reference.state.z) <= RTOL


def test_multiplicative_noise_keeps_the_numpy_round():
    """β_L > 0 scales the noise by the gradient: the numpy ``advance`` runs, bit for bit the
    numbers fednorm.p3 measures (Fed-Norm-SGDA = Local SGDA to rounding)."""
    g = make_game({**NOISY, "beta_L": 0.3}, 2)
    method = FEDNORM_SGDA.method(g, {"tau": 3, "P": 2})
    assert method.advance is not None and method.advance.__name__ == "advance"
    assert method.advance_steps is None


def test_a_changed_step_size_is_caught():
    """The comparison is not vacuous: an advance with η^c_x × (1 + 1e-9) is seen."""
    g = make_game(NOISY, 4)
    config = {"tau": 3, "P": 2, "eta_cx": 0.05}
    method = FEDNORM_SGDA.method(g, config)
    other = FEDNORM_SGDA.method(g, {**config, "eta_cx": 0.05 * (1 + 1e-9)})
    mixed = dataclasses.replace(method, advance=other.advance, advance_steps=None)
    fast = simulate(mixed, 30, replicas=3, seed=1)
    pure = method.pure()
    reference = simulate(pure, 30, replicas=3, seed=1)
    assert relative(fast.state.z, reference.state.z) > RTOL


@pytest.mark.parametrize("values, config", [
    ({"M": 6, "sigma_G": 1.0, "sigma_x": 1.0, "sigma_y": 1.0}, {"tau": 1, "tau_max": 3, "P": 3}),
    ({"M": 5, "sigma_x": 1.0, "hess_spread": 0.3}, {"tau": 2, "tau_max": 4, "P": 2, "rho": 0.5}),
    ({"M": 4, "sigma_G": 1.0}, {"tau": 2, "P": 4}),
], ids=["sampled, heterogeneous tau", "heterogeneous Hessians, momentum", "noise-free, P = n"])
@pytest.mark.parametrize("alg", [FEDNORM_SGDA, FEDNORM_SGDA_PLUS], ids=lambda a: a.name)
def test_affine_rounds_of_every_set_at_once_are_those_of_each_set(alg, values, config):
    """exact.noisy_affine_rounds (every client set as replicas of one round) gives bit for bit
    the (A, c, N) of exact.noisy_affine_round per set, in combinations order."""
    g = make_game(values, 0)
    method = alg.method(g, {**config, "eta_cx": 0.01, "eta_cy": 0.02})
    P = method.config["P"]
    alone = [exact.noisy_affine_round(method, g, np.array(S))
             for S in combinations(range(g.M), P)]
    together = exact.noisy_affine_rounds(method, g, P)
    assert len(together) == len(alone) == math.comb(g.M, P)
    for one, other in zip(alone, together, strict=True):
        for a, b in zip(one, other, strict=True):
            assert a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    assert not np.array_equal(together[0][0], together[-1][0]) or P == g.M
    assert together[0][2].shape[1] == (0 if not g.noisy else g.d * P * int(method.config.get(
        "tau_max") or method.config["tau"]))


@pytest.mark.parametrize("family, values, options", [
    ("minmax-quadratic", {"M": 4, "sigma_x": 1.0, "sigma_y": 1.0, "beta_L": 0.5}, {"rho": 0.5}),
    ("minmax-ncc", {"M": 5, "sigma_x": 1.0, "lam": 1.0, "radius": 0.5}, {"x_snap": True}),
], ids=["momentum, multiplicative noise", "snapshot, NC-C ball"])
def test_local_iterates_of_one_run_are_the_runs_cut_at_every_k(family, values, options):
    """fednorm_lemmas.local_iterates (fednorm.p8, p14b) gives, for every k, bit for bit
    local_steps with τ_i cut at k, the run it replaces."""
    g = make_game(values, 1, family)
    rng = np.random.default_rng(7)
    tau = np.array([1, 3, 6, 2, 5])[: g.M]
    R, K = 9, int(tau.max())
    s = np.concatenate([np.full(g.dx, 0.05), np.full(g.dy, -0.04)])
    z0 = np.broadcast_to(rng.standard_normal(g.d), (R, g.M, g.d)).copy()
    xi = rng.standard_normal((R, K, g.M, g.d))
    if options.get("x_snap"):
        options = {"x_snap": np.broadcast_to(rng.standard_normal(g.dx), (R, g.M, g.dx)).copy()}
    got = local_iterates(g, z0, tau, s, xi, **options)
    assert len(got) == K + 1
    np.testing.assert_array_equal(got[0], z0)
    for k in range(1, K + 1):
        np.testing.assert_array_equal(got[k], local_steps(g, z0, None, np.minimum(tau, k), s, xi,
                                                          **options))
    assert not np.array_equal(got[K], got[K - 1])


@pytest.mark.parametrize("config", list(CONFIGS))
def test_fused_round_of_many_replicas_is_each_replica_alone(config):
    """A replica's numbers do not depend on the others (its own client gathered, or one client
    shared by all replicas): the fused round on 6 replicas equals, bit for bit, the round on
    each replica alone with its own draws."""
    g = make_game({**NOISY, "hess_spread": 0.2}, 5)
    method = FEDNORM_SGDA_PLUS.method(g, CONFIGS[config])
    R, M, P = 6, g.M, method.config["P"]
    rng = np.random.default_rng(11)
    K = int(np.max(method.config.get("tau_max") or method.config["tau"]))
    state = method.init(R, 0)._replace(z=rng.standard_normal((R, g.d)))
    draws = {"clients": rng.random((R, M)), "noise": rng.standard_normal((R, K, P, g.d))}
    together, _ = method.advance(state._replace(z=state.z.copy()), draws, 0, {})
    for r in range(R):
        one = state._replace(z=state.z[r:r + 1].copy(), x_hat=state.x_hat[r:r + 1].copy())
        alone, _ = method.advance(one, {k: v[r:r + 1] for k, v in draws.items()}, 0, {})
        np.testing.assert_array_equal(alone.z[0], together.z[r])
    assert not np.array_equal(together.z, state.z)


def _average_with_kron(g, config: dict, P: int, T: int) -> float:
    """fednorm.p20's exact (1/T) Σ E‖∇Φ(x_t)‖² assembled map by map with np.kron (the form the
    batched assembly replaced)."""
    method = FEDNORM_SGDA.method(g, config)
    d, dx = g.d, g.dx
    maps = [exact.noisy_affine_round(method, g, np.array(S))
            for S in combinations(range(g.M), P)]
    size = d + d * d
    big = np.zeros((size, size))
    big[:d, :d] = np.mean([A for A, _, _ in maps], axis=0)
    big[d:, :d] = np.mean([np.kron(A, c[:, None]) + np.kron(c[:, None], A)
                           for A, c, _ in maps], axis=0)
    big[d:, d:] = np.mean([np.kron(A, A) for A, _, _ in maps], axis=0)
    b = np.concatenate([np.mean([c for _, c, _ in maps], axis=0),
                        np.mean([np.outer(c, c) + N @ N.T for _, c, N in maps],
                                axis=0).reshape(-1)])
    h = g.grad_phi(np.zeros((1, dx)))[0]
    G = np.stack([g.grad_phi(np.eye(dx)[i][None])[0] - h for i in range(dx)], axis=1)
    weight = np.zeros((d, d))
    weight[:dx, :dx] = G.T @ G
    ell = np.concatenate([np.pad(2 * G.T @ h, (0, d - dx)), weight.reshape(-1)])
    s0 = np.concatenate([g.z0, np.outer(g.z0, g.z0).reshape(-1)])
    eye = np.eye(size)
    s_star = np.linalg.solve(eye - big, b)
    transient = np.linalg.solve(eye - big, (eye - np.linalg.matrix_power(big, T)) @ (s0 - s_star))
    return float(ell @ (s_star + transient / T) + h @ h)


def test_p20_average_is_the_kron_assembly_bit_for_bit():
    """fednorm.p20's grad_phi_average (all client sets batched, Kronecker products broadcast)
    gives the map-by-map np.kron assembly's numbers exactly, at short and long horizons."""
    from fedbounds.verify.claims.fednorm import P20_SET, grad_phi_average

    g = make_game({**P20_SET, "M": 6}, 0)
    config = {"tau": 1, "tau_max": 3, "P": 3, "eta_cx": 0.01, "eta_cy": 0.02, "gamma_sx": 0.001,
              "gamma_sy": 0.05}
    average = grad_phi_average(g, config, 3)
    values = [average(T) for T in (1, 10, 1000, 10**9)]
    assert values[0] != values[-1]
    for T, value in zip((1, 10, 1000, 10**9), values, strict=True):
        assert value == _average_with_kron(g, config, 3, T)


@pytest.mark.parametrize("family, values", list(GAMES.values()), ids=list(GAMES))
@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("alg", [LOCAL_SGDA_PLUS, FEDNORM_SGDA, FEDNORM_SGDA_PLUS],
                         ids=lambda a: a.name)
def test_rounds_between_records_in_one_call_are_the_rounds_one_by_one(alg, config, family,
                                                                      values):
    """advance_steps (every round between two records in one compiled call: the snapshot
    refreshed inside, index sets from each round's own draws) gives bit for bit the records,
    communications and final state of advance called round by round; records every 7 rounds
    with a snapshot period of 2 or 3 and 30 rounds (a short last block)."""
    g = make_game(values, 6, family)
    method = alg.method(g, CONFIGS[config])
    assert method.advance_steps is not None
    observe = {"z": lambda st: st.z[:, 0], "last": lambda st: st.z[:, -1]}
    blocks = simulate(method, 30, replicas=4, seed=8, record_every=7, observe=observe)
    single = simulate(dataclasses.replace(method, advance_steps=None), 30, replicas=4, seed=8,
                      record_every=7, observe=observe)
    np.testing.assert_array_equal(blocks.iterations, [0, 7, 14, 21, 28, 30])
    for a, b in zip(blocks.state, single.state, strict=True):
        np.testing.assert_array_equal(a, b)
    for name in observe:
        np.testing.assert_array_equal(blocks.metrics[name], single.metrics[name])
    np.testing.assert_array_equal(blocks.communications, single.communications)
    assert blocks.communications[-1, 0] == 30
