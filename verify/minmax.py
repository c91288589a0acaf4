"""Shared machinery of the federated min-max algorithms (SAGDA, Fed-Norm-SGDA, FedSGDA+/M) on
:class:`fedbounds.problems.minmax.MinMaxGame`: client sampling, noisy joint gradients, local
descent–ascent steps, and what every min-max method observes.

DESIGN "executor": state arrays shaped (replicas, clients, dim), one vectorized step per round for
all clients and replicas, randomness from named streams of :func:`verify.executor.execute`.

* ``clients`` — uniform draws (R, M); the m sampled clients of each replica are the m smallest
  (argsort), i.e. uniform sampling without replacement (sagda.md L123; fed_norm_sgda.md (3)). The
  draw is made for every M and m so runs with different m share the other streams.
* ``noise`` — standard normals (R, K, m, d), one per local step and *sampled slot* (the j-th sampled
  client in index order; at m = M slot j is client j), shared by algorithms with the same stream
  names and m; scaled by the game's noise model in :func:`noisy_grad`. :func:`local_steps` also
  accepts per-client draws (R, K, M, d) and gathers them.

Signed local steps: a descent–ascent step is z ← z − s ⊙ g with s = (η_x, …, −η_y, …), g the joint
gradient (∇_x f, ∇_y f).

Every min-max method's state is a ``NamedTuple`` whose field ``z`` is the server model
(replicas, d); :func:`server_observe` and the exact round maps of :mod:`.exact.minmax` rely on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fedbounds.problems.minmax import MinMaxGame

State = tuple[np.ndarray, ...]


# ---- streams ----------------------------------------------------------------------------------
def client_draw(M: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    """Uniform draws (R, M); :func:`sampled` turns them into index sets."""
    return lambda rng, R: rng.random((R, M))


def sampled(u: np.ndarray, m: int) -> np.ndarray:
    """Indices (R, m), sorted, of the m smallest draws per replica: uniform without replacement."""
    if m == u.shape[1]:
        return np.broadcast_to(np.arange(m), u.shape).copy()
    return np.sort(np.argpartition(u, m - 1, axis=1)[:, :m], axis=1)


def sampled_in_run(u: np.ndarray, m: int, scratch: dict) -> np.ndarray:
    """:func:`sampled` for an in-place step: at m = M (every client, in order, whatever the
    draws) the index set is made once per run and kept in ``scratch``."""
    if m != u.shape[1]:
        return sampled(u, m)
    every = scratch.get("every")
    if every is None or every.shape[0] != u.shape[0]:
        every = scratch["every"] = sampled(u, m)
    return every


def noise_draw(K: int, M: int, d: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    return lambda rng, R: rng.standard_normal((R, K, M, d))


def gather(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """a (R, M, ...) at client indices idx (R, m) -> (R, m, ...)."""
    return np.take_along_axis(a, idx.reshape(idx.shape + (1,) * (a.ndim - 2)), axis=1)


# ---- gradients --------------------------------------------------------------------------------
def client_grad(g: MinMaxGame, z: np.ndarray, idx: np.ndarray | None = None,
                H: np.ndarray | None = None, h: np.ndarray | None = None) -> np.ndarray:
    """Joint gradients ∇f_i(z_i) for z (R, k, d) at clients idx (R, k) (None: all M in order).
    ``H``/``h`` may be passed pre-gathered ((R, k, d, d), (R, k, d))."""
    if H is None:
        if idx is None:
            out = np.matmul(z.swapaxes(0, 1), g.H.transpose(0, 2, 1)).swapaxes(0, 1) + g.h
        else:
            out = np.matmul(g.H[idx], z[..., None])[..., 0] + g.h[idx]
    else:
        out = np.matmul(H, z[..., None])[..., 0] + h
    if g.lam:
        out[..., : g.dx] -= g.lam * np.sin(z[..., : g.dx])
    return out


def same_hessian(g: MinMaxGame) -> bool:
    """Whether every client has the same Hessian H_i = H (the shortcuts of
    :func:`common_hessian`, :func:`shared_grad` and :func:`fast_local_steps` apply)."""
    return bool(np.all(g.H == g.H[:1]))


def common_hessian(g: MinMaxGame) -> np.ndarray | None:
    """Hᵀ (d, d) when every client has the same Jacobian H_i = H and the gradients are affine
    (λ = 0), else None: then ∇f_i(z) = zHᵀ + h_i is one product for all replicas and clients."""
    if g.lam or not same_hessian(g):
        return None
    return np.ascontiguousarray(g.H[0].T)


def all_client_grads(g: MinMaxGame) -> Callable[[np.ndarray], np.ndarray]:
    """``client_grad(g, z)`` for z (R, M, d) of all M clients in order, the game's constants
    bound once (a single (R·M, d) × (d, d) product under a common Hessian: the same numbers)."""
    HT = common_hessian(g)
    if HT is None:
        return lambda z: client_grad(g, z)
    h, d = g.h, g.d
    return lambda z: (np.ascontiguousarray(z).reshape(-1, d) @ HT).reshape(z.shape) + h


def noise_scale(g: MinMaxGame, batch: float = 1.0) -> np.ndarray | None:
    """sqrt(coord_var/batch) (d,), the factor of ξ in :func:`noisy_grad` when it does not depend
    on the gradient (β_L = 0); None when the game is noise-free or β_L ≠ 0."""
    if not g.noisy or g.beta_L:
        return None
    return np.sqrt(g.coord_var() / batch)


def full_like_clients(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` broadcast to ``shape`` as a contiguous array: the constants of an in-place step
    taken at the full shape of the state, so every elementwise operation is on equal shapes
    (numpy's fast path; broadcasting a length-d axis over clients costs ~10x)."""
    return np.ascontiguousarray(np.broadcast_to(a, shape))


def noisy_grad(g: MinMaxGame, grad: np.ndarray, xi: np.ndarray | None, batch: float = 1.0,
               var: np.ndarray | None = None) -> np.ndarray:
    """grad + ξ ⊙ sqrt((σ_x²/dx, σ_y²/dy) + β_L²‖grad‖²/d) / √batch: E‖ξ_x‖² = σ_x²/b,
    E‖ξ‖² = (σ_L² + β_L²‖∇f_i‖²)/b (fed_norm_sgda.md A3; fedsgda_m.md (N-add))."""
    if xi is None or not g.noisy:
        return grad
    v = g.coord_var() if var is None else var
    if g.beta_L:
        v = v + g.beta_L**2 * np.einsum("...i,...i->...", grad, grad)[..., None] / g.d
    return grad + xi * np.sqrt(v / batch)


def project_y(g: MinMaxGame, z: np.ndarray) -> np.ndarray:
    """NC-C variant: y onto the ball ‖y‖ ≤ r (in place)."""
    if g.radius is not None:
        y = z[..., g.dx:]
        n = np.linalg.norm(y, axis=-1, keepdims=True)
        z[..., g.dx:] = y * np.minimum(1.0, g.radius / np.maximum(n, 1e-300))
    return z


def signed(g: MinMaxGame, ex: float, ey: float) -> np.ndarray:
    """s = (η_x, …, −η_y, …): z − s ⊙ g descends in x and ascends in y."""
    return np.concatenate([np.full(g.dx, float(ex)), np.full(g.dy, -float(ey))])


def pair(g: MinMaxGame, ax: float, ay: float) -> np.ndarray:
    """(a_x, …, a_y, …) (unsigned per-block factors, e.g. server steps)."""
    return np.concatenate([np.full(g.dx, float(ax)), np.full(g.dy, float(ay))])


def local_steps(g: MinMaxGame, z0: np.ndarray, idx: np.ndarray | None, tau: np.ndarray,
                s: np.ndarray, xi: np.ndarray | None, *, corr: np.ndarray | None = None,
                x_snap: np.ndarray | None = None, rho: float = 0.0, batch: float = 1.0,
                watch: Callable[[np.ndarray, np.ndarray], None] | None = None) -> np.ndarray:
    """Local descent–ascent of the selected clients from z0 (R, k, d); client j takes
    τ_{idx_j} steps (tau: (M,) ints). Direction per step: ∇f_i(z; ξ) + corr (SAGDA control
    variates), with ∇_y taken at (x_snap, y) for the "+" variants (fed_norm_sgda.md §4.1),
    heavy-ball d ← ρd + direction (buffer reset per round, §2 examples), z ← z − s ⊙ d.
    ``watch(z, grad)``, when given, sees every local iterate z (R, k, d) with its noise-free
    gradient ∇f_i(z) (R, k, d) before the step (e.g. to bound the gradients a proof uses)."""
    R, k, d = z0.shape
    dx = g.dx
    if idx is None:
        H, h = np.broadcast_to(g.H, (R,) + g.H.shape), np.broadcast_to(g.h, (R,) + g.h.shape)
        tau_sel = np.broadcast_to(tau, (R, k))
    else:
        H, h, tau_sel = g.H[idx], g.h[idx], tau[idx]
    K = int(tau.max())
    hetero = bool(np.any(tau != K))
    z = z0.copy()
    buf = np.zeros_like(z) if rho else None
    if xi is not None and idx is not None and xi.shape[2] != k:  # draws per client: gather once
        xi = np.take_along_axis(xi[:, :K], idx[:, None, :, None], axis=2)
    for step in range(K):
        grad = client_grad(g, z, H=H, h=h)
        if watch is not None:
            watch(z, grad)
        if x_snap is not None:
            zs = np.concatenate([x_snap, z[..., dx:]], axis=-1)
            grad[..., dx:] = client_grad(g, zs, H=H, h=h)[..., dx:]
        if xi is not None:
            grad = noisy_grad(g, grad, xi[:, step], batch)
        if corr is not None:
            grad = grad + corr
        if rho:
            buf = rho * buf + grad
            grad = buf
        upd = s * grad
        if hetero:
            upd = upd * (step < tau_sel)[..., None]
        z = project_y(g, z - upd)
    return z


LocalSteps = Callable[..., np.ndarray]


def shared_grad(g: MinMaxGame, z: np.ndarray, h: np.ndarray,
                x_snap: np.ndarray | None = None) -> np.ndarray:
    """``client_grad(g, z, H=H, h=h)`` (R, k, d) when all clients have the same Hessian and
    each replica's clients the same point (z[:, i] = z[:, 0]): H z once per replica, the same
    product (the same numbers) broadcast over the clients, plus their h_i. With ``x_snap``
    (R, 1, dx) the y-block is taken at (x_snap, y), as :func:`local_steps` does (the x-block's
    product, the y-block's product, then + h_i and −λ sin x on the x-block: the same
    operations on the same numbers)."""
    z1 = z[:, :1]
    if x_snap is None:
        return client_grad(g, z1, H=g.H[None, :1], h=h)  # (1, 1, d, d): matmul broadcasts
    dx = g.dx
    pair = np.empty((z1.shape[0], 2, z1.shape[2]))  # (z, (x_snap, y)) of each replica
    pair[:, :1] = z1
    pair[:, 1:, :dx] = x_snap
    pair[:, 1:, dx:] = z1[..., dx:]
    both = np.matmul(g.H[None, :1], pair[..., None])[..., 0]  # (R, 2, d): at z, at the snapshot
    out = both[:, :1].copy()  # the x-block at z, the y-block at the snapshot
    out[..., dx:] = both[:, 1:, dx:]
    out = out + h
    if g.lam:
        out[..., :dx] -= g.lam * np.sin(z1[..., :dx])
    return out


def fast_local_steps(g: MinMaxGame, tau: np.ndarray, s: np.ndarray, *, rho: float = 0.0,
                     batch: float = 1.0) -> LocalSteps:
    """:func:`local_steps` with the game's and the method's constants (τ, s, ρ, batch) bound
    once: ``run(z0, idx, xi, scratch, corr=None, x_snap=None, shared_start=False)`` gives the
    same numbers (the same gradient products, sums and roundings) with less work per local
    step: the additive noise scale is taken once and the constants are kept at the state's
    shape in ``scratch`` (one dict per run, :class:`..algorithm.Method` ``advance``), so no
    elementwise operation broadcasts a length-d axis over clients (~10x slower in numpy).
    ``shared_start``: every client of a replica starts at the same point (z0 a repeat); under a
    common Hessian the first step's H z is then one product per replica (:func:`shared_grad`).
    ``first``: the noise-free gradients ∇f_i(z0) (R, k, d) when the caller has them already
    (``client_grad`` / :func:`shared_grad` at z0, without ``x_snap``: the same numbers).
    The gathered H_i, h_i are kept while ``idx`` is the same (unchanged) array as last time."""
    scale = noise_scale(g, batch)
    dx, d = g.dx, g.d
    K = int(tau.max())
    hetero = bool(np.any(tau != K))
    H_all = g.H
    common = same_hessian(g)

    def run(z0: np.ndarray, idx: np.ndarray | None, xi: np.ndarray | None, scratch: dict, *,
            corr: np.ndarray | None = None, x_snap: np.ndarray | None = None,
            shared_start: bool = False, first: np.ndarray | None = None) -> np.ndarray:
        shape = z0.shape
        R, k, _ = shape
        key = ("local", shape)
        if key not in scratch:
            scratch[key] = {"s": full_like_clients(s, shape),
                            "scale": None if scale is None else full_like_clients(scale, shape),
                            "y": full_like_clients(np.arange(d) >= dx, shape),
                            "H": np.broadcast_to(H_all, (R,) + H_all.shape)}
        c = scratch[key]
        if idx is None:
            H, h = c["H"], g.h
            tau_sel = np.broadcast_to(tau, (R, k)) if hetero else None
        else:
            kept = scratch.get("gathered")
            if kept is not None and kept[0] is idx:  # the same index set as last time
                H, h, tau_sel = kept[1:]
            else:
                H, h, tau_sel = H_all[idx], g.h[idx], tau[idx] if hetero else None
                scratch["gathered"] = (idx, H, h, tau_sel)
        if xi is not None and idx is not None and xi.shape[2] != k:  # draws per client
            xi = np.take_along_axis(xi[:, :K], idx[:, None, :, None], axis=2)
        if xi is not None and not g.noisy:
            xi = None
        snap = None
        z = z0
        buf = None
        for step in range(K):
            if step == 0 and first is not None:  # the caller's ∇f_i(z0), the same numbers
                grad = first.copy()
            elif step == 0 and shared_start and common:  # one H z per replica, then + h_i
                grad = shared_grad(g, z, h, x_snap)
            elif x_snap is None:
                grad = client_grad(g, z, H=H, h=h)
            else:  # ∇_y at (x_snap, y)
                if snap is None:
                    snap = np.empty(shape)
                    snap[..., :dx] = x_snap
                snap[..., dx:] = z[..., dx:]
                grad = np.where(c["y"], client_grad(g, snap, H=H, h=h),
                                client_grad(g, z, H=H, h=h))
            if xi is not None:
                if scale is None:
                    grad = noisy_grad(g, grad, xi[:, step], batch)
                else:
                    grad += xi[:, step] * c["scale"]
            if corr is not None:
                grad += corr
            if rho:
                buf = grad if buf is None else rho * buf + grad
                grad = buf
            upd = c["s"] * grad
            if hetero:
                upd = upd * (step < tau_sel)[..., None]
            z = project_y(g, z - upd)
        return z

    return run


MINMAX_PROBLEMS = ("minmax-quadratic", "minmax-scalar", "minmax-cos", "minmax-ncc")
"""The game families every federated min-max method runs on (``problems/minmax.py``)."""


# ---- what every min-max method observes -------------------------------------------------------
def server_observe(g: MinMaxGame, w: np.ndarray | None = None) -> dict[str, Callable[[Any], np.ndarray]]:
    """grad_phi_sq = ‖∇Φ(x)‖² of the server model (Moreau gradient for NC-C) and dist_sq =
    ‖z − z*‖² (affine games), with ``w`` the weights of the objective (None: the game's p)."""
    grad_phi_sq, dx = g.grad_phi_sq_map(w), g.dx
    out: dict[str, Callable[[Any], np.ndarray]] = {
        "grad_phi_sq": lambda st: grad_phi_sq(st.z[:, :dx])}
    if g.lam == 0 and g.radius is None:
        zs = g.z_star(w)
        out["dist_sq"] = lambda st: np.sum((st.z - zs) ** 2, axis=1)
    return out


MOREAU_COST = 1e7  # an NC-C game's ‖∇Φ_{1/2L_f}‖²: a BFGS solve per replica and record (≈ 10 ms)


def run_cost(g: MinMaxGame, clients: int, local: float, noise_steps: int = 0,
             steps_param: str | None = None) -> dict[str, Any]:
    """The cost model of a min-max method (:func:`verify.algorithm.check_run`): per replica
    and local step, ``clients`` joint gradients with their gathered (d × d) Hessians; held at
    once, those Hessians, ``noise_steps`` noise draws per client and the M clients' state;
    recorded, ∇Φ (a BFGS solve per record for NC-C games, :data:`MOREAU_COST`)."""
    d = g.d
    return {"local_steps": float(local), "step_numbers": float(clients * d * d),
            "held_numbers": float(clients * d * d + noise_steps * clients * d + g.M * (d + 1)),
            "record_numbers": MOREAU_COST if g.radius is not None else float(d * d),
            "steps_param": steps_param}


def start(z: np.ndarray, replicas: int) -> np.ndarray:
    """The server model z (d,) repeated for every replica."""
    return np.broadcast_to(z, (replicas, z.shape[-1])).copy()


def as_taus(tau: Any, M: int) -> np.ndarray:
    """τ_i per client from a scalar or a sequence (positive integers)."""
    t = np.broadcast_to(np.asarray(tau, dtype=float), (M,)).copy()
    if np.any(t < 1) or np.any(t != np.round(t)):
        raise ValueError(f"local steps must be positive integers, got {tau}")
    return t.astype(int)


def stationary_floor(method: Any, g: MinMaxGame, rounds: int, replicas: int, seed: int,
                     record_every: int = 5) -> Any:
    """Stationary E‖∇Φ‖² of a min-max method started at the saddle z* (no transient): the
    plateau over the last 2/3 of the records, with its interval over replicas."""
    from .algorithm import simulate
    from .fitting import plateau

    state = method.init(replicas, seed)._replace(z=start(g.z_star(), replicas))
    gp = simulate(method, rounds, replicas=replicas, seed=seed, record_every=record_every,
                  state=state).metrics["grad_phi_sq"]
    return plateau(gp, gp.shape[0] // 3)
