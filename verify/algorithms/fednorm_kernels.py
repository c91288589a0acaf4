"""A fused round of Local SGDA(+) / Fed-Norm-SGDA(+) (:mod:`.fednorm`), compiled by numba.

One call runs a whole round for every replica: each sampled client's τ_i local (momentum)
descent–ascent steps from the server model, then the server's aggregation, the operations of
the numpy round (``build_fednorm``'s ``step``) in the same order per number, on one client's d
numbers at a time instead of numpy passes over (replicas, clients, d) arrays (a round of the
claims' small games is mostly Python and numpy call overhead). The one difference: a joint
gradient H_i z + h_i is summed here in index order, where numpy's matmul hands the product to
BLAS, so iterates agree with ``step`` to rounding (tests/verify/test_fednorm_speed.py: 1e-12
relative), not bit for bit.

Covered: common or per-client Hessians, additive noise with a fixed scale (β_L = 0), the
cosine term λ, the NC-C projection of y onto a ball, heterogeneous τ_i, heavy-ball ρ, the
snapshot x̂ of the "+" variants, full or partial participation. No Python objects, no
exceptions: an overflow gives inf or nan, which the executor's metrics report as diverged.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def _client_rows(H: np.ndarray, h: np.ndarray, idx: np.ndarray, j: int, v: np.ndarray,
                 grad: np.ndarray, first: int, last: int) -> None:
    """grad[a, r] = Σ_b H_i[a, b] v[b, r] + h_i[a] (b in order) for the rows a = first … last − 1
    and every replica r, i = idx[r, j] its client in slot j; v, grad (d, R)."""
    d, R = v.shape
    for a in range(first, last):
        for r in range(R):
            i = idx[r, j]
            total = 0.0
            for b in range(d):
                total += H[i, a, b] * v[b, r]
            grad[a, r] = total + h[i, a]


@_jit
def fednorm_round(z: np.ndarray, idx: np.ndarray, noise: np.ndarray, x_hat: np.ndarray,
                  H: np.ndarray, h: np.ndarray, flags: np.ndarray, reals: np.ndarray,
                  vectors: np.ndarray, clients: np.ndarray, work: np.ndarray) -> None:
    """One round on z (R, d), in place: for each replica r and sampled slot j (client
    i = idx[r, j]), ``steps`` local steps from z[r]: grad = H_i z_k + h_i (− λ sin x on the
    x-block; the y-block at (x̂[r], y) when ``plus``) + ξ[r, step, j] ⊙ scale when ``noisy``,
    heavy-ball buf ← ρ buf + grad (buf = grad at the first step), upd = s ⊙ buf (× [step < τ_i]
    when ``hetero``), z_k ← z_k − upd, y projected onto the ball ‖y‖ ≤ radius when radius > 0.
    Then acc = Σ_j wt_i ((z − z_K)/(s a1_i)) (normalized) or Σ_j wt_i (z_K − z), summed over
    the slots in order, z ← z − srv ⊙ acc or z + acc, projected.

    The constants come packed (few arguments: a call's overhead grows with their number):
    ``flags`` = (steps, hetero, noisy, dx, plus, normalized) int64, ``reals`` = (ρ, λ, radius),
    ``vectors`` (3, d) = (s, scale, srv), ``clients`` (3, M) = (a1, wt, τ); ``noise`` and
    ``x_hat`` are empty when unused. ``work`` (6, d, R) is scratch: the replicas are the
    innermost axis of every loop (one slot and coordinate of all replicas at a time), each
    number computed by the same operations in the same order as one replica alone."""
    steps, hetero, noisy, dx = flags[0], flags[1] != 0, flags[2] != 0, flags[3]
    plus, normalized = flags[4] != 0, flags[5] != 0
    rho, lam, radius = reals[0], reals[1], reals[2]
    s, scale, srv = vectors[0], vectors[1], vectors[2]
    a1, wt, tau = clients[0], clients[1], clients[2]
    R, d = z.shape
    P = idx.shape[1]
    zk, grad, buf, acc, snap, norm = work[0], work[1], work[2], work[3], work[4], work[5, 0]
    for k in range(d):
        for r in range(R):
            acc[k, r] = 0.0
    for j in range(P):
        shared = True  # the same client in every replica (all clients sampled, or R = 1)
        for r in range(1, R):
            if idx[r, j] != idx[0, j]:
                shared = False
        for k in range(d):
            for r in range(R):
                zk[k, r] = z[r, k]
        if plus:
            for k in range(dx):
                for r in range(R):
                    snap[k, r] = x_hat[r, k]
        for step in range(steps):
            if shared:
                i0 = idx[0, j]
                for a in range(d):
                    ga = grad[a]
                    for r in range(R):
                        ga[r] = 0.0
                    for b in range(d):
                        coef = H[i0, a, b]
                        zb = zk[b]
                        for r in range(R):
                            ga[r] += coef * zb[r]
                    for r in range(R):
                        ga[r] = ga[r] + h[i0, a]
            else:
                _client_rows(H, h, idx, j, zk, grad, 0, d)
            if lam != 0.0:
                for a in range(dx):
                    for r in range(R):
                        grad[a, r] -= lam * math.sin(zk[a, r])
            if plus:  # ∇_y at (x̂, y)
                for k in range(dx, d):
                    for r in range(R):
                        snap[k, r] = zk[k, r]
                _client_rows(H, h, idx, j, snap, grad, dx, d)
            if noisy:
                for k in range(d):
                    for r in range(R):
                        grad[k, r] += noise[r, step, j, k] * scale[k]
            if rho != 0.0:
                if step == 0:
                    for k in range(d):
                        for r in range(R):
                            buf[k, r] = grad[k, r]
                else:
                    for k in range(d):
                        for r in range(R):
                            buf[k, r] = rho * buf[k, r] + grad[k, r]
                for k in range(d):
                    for r in range(R):
                        grad[k, r] = buf[k, r]
            if hetero:
                for k in range(d):
                    for r in range(R):
                        mask = 1.0 if step < tau[idx[r, j]] else 0.0
                        zk[k, r] = zk[k, r] - s[k] * grad[k, r] * mask
            else:
                for k in range(d):
                    sk = s[k]
                    for r in range(R):
                        zk[k, r] = zk[k, r] - sk * grad[k, r]
            if radius > 0.0:
                _project(zk, dx, radius, norm)
        if normalized:
            for k in range(d):
                for r in range(R):
                    i = idx[r, j]
                    acc[k, r] += wt[i] * ((z[r, k] - zk[k, r]) / (s[k] * a1[i]))
        else:
            for k in range(d):
                for r in range(R):
                    acc[k, r] += wt[idx[r, j]] * (zk[k, r] - z[r, k])
    if normalized:
        for k in range(d):
            for r in range(R):
                zk[k, r] = z[r, k] - srv[k] * acc[k, r]
    else:
        for k in range(d):
            for r in range(R):
                zk[k, r] = z[r, k] + acc[k, r]
    if radius > 0.0:
        _project(zk, dx, radius, norm)
    for k in range(d):
        for r in range(R):
            z[r, k] = zk[k, r]


@_jit
def _project(v: np.ndarray, dx: int, radius: float, norm: np.ndarray) -> None:
    """Every column of v (d, R) with y = v[dx:] onto the ball ‖y‖ ≤ radius, as
    ``verify.minmax.project_y``: y ← y · min(1, radius / max(‖y‖, 1e-300)) (‖y‖ summed in
    index order); ``norm`` (R,) is scratch."""
    d, R = v.shape
    for r in range(R):
        norm[r] = 0.0
    for k in range(dx, d):
        for r in range(R):
            norm[r] += v[k, r] * v[k, r]
    for r in range(R):
        norm[r] = min(1.0, radius / max(math.sqrt(norm[r]), 1e-300))
    for k in range(dx, d):
        for r in range(R):
            v[k, r] = v[k, r] * norm[r]


@_jit
def fednorm_rounds(z: np.ndarray, idx: np.ndarray, noise: np.ndarray, x_hat: np.ndarray,
                   t0: int, period: int, H: np.ndarray, h: np.ndarray, flags: np.ndarray,
                   reals: np.ndarray, vectors: np.ndarray, clients: np.ndarray,
                   work: np.ndarray) -> None:
    """``idx.shape[0]`` consecutive rounds t0, t0 + 1, … of :func:`fednorm_round` on z, in
    place: round k with the index sets idx[k] (R, P) and the draws noise[k] (R, K, P, d) (one
    empty block when noise-free); the "+" variants first refresh the snapshot x_hat (R, dx), in
    place, to z's x-block at every round t with t % period == 0 (``step``'s x̂ = x^{(t)})."""
    noisy, dx, plus = flags[2] != 0, flags[3], flags[4] != 0
    for k in range(idx.shape[0]):
        if plus and (t0 + k) % period == 0:
            for r in range(z.shape[0]):
                for a in range(dx):
                    x_hat[r, a] = z[r, a]
        fednorm_round(z, idx[k], noise[k] if noisy else noise[0], x_hat, H, h, flags, reals,
                      vectors, clients, work)
