"""Fused elementwise kernels of the federated min-max methods' in-place steps, compiled by numba.

The games' gradient products (BLAS dgemm / gemv in numpy) stay numpy calls: their summation
order is the library's. What the kernels replace is the chain of small numpy passes around them
(scaled noise, differences, STORM updates, means over clients), each a few microseconds of call
overhead on the (replicas, clients, d) states of the claims. Each kernel performs the numpy
forms' floating-point operations in the same order (no contraction into fused multiply-adds, sums
over clients sequential from 0.0 as ``numpy.einsum("rmi->ri")`` does, then the division by the
client count), so the iterates are the same bit for bit (tests/verify/test_minmax_kernels.py).
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def storm_sync_means(z: np.ndarray, u: np.ndarray, s: np.ndarray, w: np.ndarray,
                     u_mean: np.ndarray) -> None:
    """FedSGDA-M communication: w = mean_i(z_i − s ⊙ u_i) and u_mean = mean_i(u_i) per replica
    (z, u: (R, N, d); s: (d,); w, u_mean: (R, d), written)."""
    replicas, clients, dim = z.shape
    for r in range(replicas):
        for k in range(dim):
            w[r, k] = 0.0
            u_mean[r, k] = 0.0
        for i in range(clients):
            for k in range(dim):
                w[r, k] += z[r, i, k] - s[k] * u[r, i, k]
                u_mean[r, k] += u[r, i, k]
        for k in range(dim):
            w[r, k] = w[r, k] / clients
            u_mean[r, k] = u_mean[r, k] / clients


@_jit
def storm_local_move(z: np.ndarray, u: np.ndarray, s: np.ndarray) -> None:
    """FedSGDA-M local iteration: z_i ← z_i − s ⊙ u_i in place (z, u: (R, N, d); s: (d,))."""
    replicas, clients, dim = z.shape
    for r in range(replicas):
        for i in range(clients):
            for k in range(dim):
                z[r, i, k] = z[r, i, k] - s[k] * u[r, i, k]


@_jit
def _storm(new: float, old: float, shift: float, keep: float, previous: float) -> float:
    """One coordinate of the STORM estimator with additive noise (the same ξ⊙scale = ``shift``
    at both points): (∇_new + shift) + keep · (u − (∇_old + shift))."""
    return (new + shift) + keep * (previous - (old + shift))


@_jit
def storm_update(u: np.ndarray, grad_old: np.ndarray, grad_new: np.ndarray, noise: np.ndarray,
                 scale: np.ndarray, keep: np.ndarray, z: np.ndarray, out: np.ndarray,
                 z_mean: np.ndarray) -> None:
    """The STORM estimator with additive minibatch noise ξ ⊙ scale (the same ξ at both points):
    out = (∇_new + ξ⊙scale) + keep ⊙ (u − (∇_old + ξ⊙scale)), and z_mean = mean_i(z_i). ``u``
    may be a broadcast view (the communicated mean) and ``out`` the array under it."""
    replicas, clients, dim = z.shape
    for r in range(replicas):
        for k in range(dim):
            z_mean[r, k] = 0.0
        for i in range(clients):
            for k in range(dim):
                out[r, i, k] = _storm(grad_new[r, i, k], grad_old[r, i, k],
                                      noise[r, i, k] * scale[k], keep[k], u[r, i, k])
                z_mean[r, k] += z[r, i, k]
        for k in range(dim):
            z_mean[r, k] = z_mean[r, k] / clients


@_jit
def storm_sync_update(w: np.ndarray, u_mean: np.ndarray, grad_w: np.ndarray, h: np.ndarray,
                      noise: np.ndarray, scale: np.ndarray, keep: np.ndarray, grad: np.ndarray,
                      z: np.ndarray, u: np.ndarray, z_mean: np.ndarray) -> None:
    """FedSGDA-M after a communication under a common Hessian: every client at w (R, d), whose
    product grad_w = w Hᵀ (R, d) gives ∇f_i(w) = grad_w + h_i. Writes z_i = w, the STORM
    estimator u_i from u_mean (:func:`storm_update`), ∇f_i(w) over ``grad`` (which holds
    ∇f_i at the previous iterates on entry) and z_mean = mean_i(z_i)."""
    replicas, clients, dim = z.shape
    for r in range(replicas):
        for k in range(dim):
            z_mean[r, k] = 0.0
        for i in range(clients):
            for k in range(dim):
                new = grad_w[r, k] + h[i, k]
                u[r, i, k] = _storm(new, grad[r, i, k], noise[r, i, k] * scale[k], keep[k],
                                    u_mean[r, k])
                grad[r, i, k] = new
                z[r, i, k] = w[r, k]
                z_mean[r, k] += w[r, k]
        for k in range(dim):
            z_mean[r, k] = z_mean[r, k] / clients
