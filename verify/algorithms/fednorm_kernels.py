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
def fednorm_round(z: np.ndarray, idx: np.ndarray, H: np.ndarray, h: np.ndarray,
                  tau: np.ndarray, steps: int, hetero: bool, noise: np.ndarray, noisy: bool,
                  scale: np.ndarray, s: np.ndarray, rho: float, lam: float, dx: int,
                  radius: float, x_hat: np.ndarray, plus: bool, normalized: bool,
                  a1: np.ndarray, wt: np.ndarray, srv: np.ndarray, work: np.ndarray) -> None:
    """One round on z (R, d), in place: for each replica r and sampled slot j (client
    i = idx[r, j]), ``steps`` local steps from z[r]: grad = H_i z_k + h_i (− λ sin x on the
    x-block; the y-block at (x̂[r], y) when ``plus``) + ξ[r, step, j] ⊙ scale when ``noisy``,
    heavy-ball buf ← ρ buf + grad (buf = grad at the first step), upd = s ⊙ buf (× [step < τ_i]
    when ``hetero``), z_k ← z_k − upd, y projected onto the ball ‖y‖ ≤ radius when radius > 0.
    Then acc = Σ_j wt_i ((z − z_K)/(s a1_i)) (normalized) or Σ_j wt_i (z_K − z), summed over
    the slots in order, z ← z − srv ⊙ acc or z + acc, projected. ``work`` (5, d) is scratch."""
    R, d = z.shape
    P = idx.shape[1]
    zk, grad, buf, snap, acc = work[0], work[1], work[2], work[3], work[4]
    for r in range(R):
        for k in range(d):
            acc[k] = 0.0
        for j in range(P):
            i = idx[r, j]
            Hi, hi = H[i], h[i]
            for k in range(d):
                zk[k] = z[r, k]
            if plus:
                for k in range(dx):
                    snap[k] = x_hat[r, k]
            for step in range(steps):
                for a in range(d):
                    total = 0.0
                    for b in range(d):
                        total += Hi[a, b] * zk[b]
                    grad[a] = total + hi[a]
                if lam != 0.0:
                    for a in range(dx):
                        grad[a] -= lam * math.sin(zk[a])
                if plus:  # ∇_y at (x̂, y)
                    for k in range(dx, d):
                        snap[k] = zk[k]
                    for a in range(dx, d):
                        total = 0.0
                        for b in range(d):
                            total += Hi[a, b] * snap[b]
                        grad[a] = total + hi[a]
                if noisy:
                    xi = noise[r, step, j]
                    for k in range(d):
                        grad[k] += xi[k] * scale[k]
                if rho != 0.0:
                    if step == 0:
                        for k in range(d):
                            buf[k] = grad[k]
                    else:
                        for k in range(d):
                            buf[k] = rho * buf[k] + grad[k]
                    for k in range(d):
                        grad[k] = buf[k]
                if hetero:
                    mask = 1.0 if step < tau[i] else 0.0
                    for k in range(d):
                        zk[k] = zk[k] - s[k] * grad[k] * mask
                else:
                    for k in range(d):
                        zk[k] = zk[k] - s[k] * grad[k]
                if radius > 0.0:
                    _project(zk, dx, radius)
            if normalized:
                for k in range(d):
                    acc[k] += wt[i] * ((z[r, k] - zk[k]) / (s[k] * a1[i]))
            else:
                for k in range(d):
                    acc[k] += wt[i] * (zk[k] - z[r, k])
        zr = z[r]
        if normalized:
            for k in range(d):
                zr[k] = zr[k] - srv[k] * acc[k]
        else:
            for k in range(d):
                zr[k] = zr[k] + acc[k]
        if radius > 0.0:
            _project(zr, dx, radius)


@_jit
def _project(v: np.ndarray, dx: int, radius: float) -> None:
    """y = v[dx:] onto the ball ‖y‖ ≤ radius, as ``verify.minmax.project_y``:
    y ← y · min(1, radius / max(‖y‖, 1e-300))."""
    total = 0.0
    for k in range(dx, v.shape[0]):
        total += v[k] * v[k]
    factor = min(1.0, radius / max(math.sqrt(total), 1e-300))
    for k in range(dx, v.shape[0]):
        v[k] = v[k] * factor
