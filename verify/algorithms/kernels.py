"""Fused in-place kernels of the affine-VIP steps (ProxSkip-VIP-FL, Algorithm 2 [L212–L226];
Local GDA), compiled by numba.

The steps between two records (for Local GDA, a round) are one compiled call. Replicas are
taken a block at a time (the block's arrays stay in the L2 cache); in a block, client by
client, the product G = x_i J_iᵀ of the block's rows (``np.dot``: the same BLAS dgemm as the
pure step's batched ``np.matmul``) is followed at once by the step's elementwise work while it
is in the L1 cache — adding b and the noise, x̂ = x − γ(g − h), the client sum of the
communicating replicas — instead of one batched matmul over every client and then six to nine
numpy passes over the whole state (benchmarks/authors_game.py measures both). Local GDA runs a
round's H local steps of a client's block back to back (clients do not interact between
averagings). Each kernel performs the numpy forms' floating-point operations in the same order,
so the iterates are the same bit for bit (tests/verify/test_executor_same_iterates.py).

Arrays are client-major: x, h (n, R, d) C-contiguous over every replica; the block buffer
G (c, d) sets the replicas of a block; noise is (steps, R, n, d) (ProxSkip-VIP-FL) or
(H, R, n, d) (a Local GDA round), or a dummy of the same rank when ``noisy`` is false. The
elementwise loops run flat over a block's contiguous numbers with unsigned indices, so they
compile to vector code without index wrap-around checks. No Python objects, no exceptions: an
overflow gives inf, which the executor's metrics report as ``diverged``.
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def _proxskip_block(x: np.ndarray, h: np.ndarray, JT: np.ndarray, tiled_b: np.ndarray,
                    noise: np.ndarray, noisy: bool, theta: np.ndarray, gamma: float, p: float,
                    G: np.ndarray, acc: np.ndarray, mask: np.ndarray, lo: int,
                    rows: int) -> None:
    """One step of Alg. 2 on the replicas lo … lo + rows − 1, in place: g_i = J_i x_i + b_i
    (+ ξ_i); x̂ = x + (−γ)(g − h) written over x (a client's product is taken before its
    rows are overwritten); where θ: x⁺ = mean_i(x̂_i − (γ/p)h_i) and h += (p/γ)(x⁺ − x̂),
    else x⁺ = x̂. Writing over x, not into a second array, spares the cache the lines of
    that array (about 5 % per step at 64 replicas, measured). ``tiled_b`` (n, c·d) is b_i
    repeated over a block's rows; ``acc`` (R, d), G (c, d) and ``mask`` (c·d) are scratch."""
    n, R, d = x.shape
    ratio, inverse = gamma / p, p / gamma
    x2, h2 = x.reshape(n, R * d), h.reshape(n, R * d)
    acc2, G2 = acc.reshape(R * d), G.reshape(G.size)
    width = numba.uint64(d)
    size, base = numba.uint64(rows * d), numba.uint64(lo * d)
    communicate = False
    for s in range(rows):
        communicate |= theta[lo + s]
        for k in range(width):
            mask[s * d + k] = theta[lo + s]
    for j in range(size):
        if mask[j]:
            acc2[base + j] = 0.0
    for i in range(n):
        np.dot(x[i, lo:lo + rows], JT[i], G[:rows])
        xi, hi, bi = x2[i], h2[i], tiled_b[i]
        if noisy:
            for s in range(rows):
                ni, row = noise[lo + s, i], numba.uint64(s * d)
                for k in range(width):
                    g = G2[row + k] + bi[row + k]
                    g += ni[k]
                    xi[base + row + k] = xi[base + row + k] + (-gamma) * (g - hi[base + row + k])
        else:
            for j in range(size):
                xi[base + j] = xi[base + j] + (-gamma) * ((G2[j] + bi[j]) - hi[base + j])
        if communicate:
            for j in range(size):
                if mask[j]:
                    acc2[base + j] += xi[base + j] - ratio * hi[base + j]
    if communicate:
        for j in range(size):
            if mask[j]:
                acc2[base + j] /= n
        for i in range(n):
            hi, xi = h2[i], x2[i]
            for j in range(size):
                if mask[j]:
                    hi[base + j] = hi[base + j] + inverse * (acc2[base + j] - xi[base + j])
                    xi[base + j] = acc2[base + j]


@_jit
def proxskip_steps(x: np.ndarray, h: np.ndarray, JT: np.ndarray, tiled_b: np.ndarray,
                   noise: np.ndarray, noisy: bool, theta: np.ndarray, gamma: float, p: float,
                   G: np.ndarray, acc: np.ndarray, mask: np.ndarray) -> None:
    """``len(theta)`` steps of Alg. 2 in place (:func:`_proxskip_block`; θ (steps, R), noise
    (steps, R, n, d)), a block of replicas through all of them before the next block (replicas
    never interact, so a block's state stays in cache across the steps)."""
    R, c = x.shape[1], G.shape[0]
    steps = theta.shape[0]
    for lo in range(0, R, c):
        rows = min(c, R - lo)
        for t in range(steps):
            _proxskip_block(x, h, JT, tiled_b, noise[t if noisy else 0], noisy, theta[t],
                            gamma, p, G, acc, mask, lo, rows)


@_jit
def gda_round(x: np.ndarray, JT: np.ndarray, tiled_b: np.ndarray, noise: np.ndarray,
              noisy: bool, gamma: float, H: int, G: np.ndarray, acc: np.ndarray,
              center: np.ndarray, dist: np.ndarray) -> None:
    """One round of Local (S)GDA on every replica: H steps x_i −= γ(J_i x_i + b_i (+ ξ_i^s))
    per client (a client's block stays in cache through its H steps and is then added to the
    client sum), then the consensus mean Π: every client gets the client mean, summed over
    clients in order and divided by n (as ``np.add.reduce`` then ``/=``). While the mean is
    written back, ``dist`` (R,) gets Σ_i‖x_i − c_i‖² of the new iterate for ``center`` (n, d),
    summed in (i, k) order as :func:`sq_distance` sums it. ``tiled_b`` (n, c·d) is b_i repeated
    over a block's rows; ``acc`` (R, d) and G (c, d) are scratch."""
    n, R, d = x.shape
    c = G.shape[0]
    x2, acc2, G2 = x.reshape(n, R * d), acc.reshape(R * d), G.reshape(c * d)
    width = numba.uint64(d)
    for lo in range(0, R, c):
        rows = min(c, R - lo)
        size, base = numba.uint64(rows * d), numba.uint64(lo * d)
        for j in range(size):
            acc2[base + j] = 0.0
        for i in range(n):
            xi, bi = x2[i], tiled_b[i]
            for step in range(H):
                np.dot(x[i, lo:lo + rows], JT[i], G[:rows])
                if noisy:
                    for s in range(rows):
                        ni, row = noise[step, lo + s, i], numba.uint64(s * d)
                        for k in range(width):
                            g = G2[row + k] + bi[row + k]
                            g += ni[k]
                            xi[base + row + k] -= gamma * g
                else:
                    for j in range(size):
                        xi[base + j] -= gamma * (G2[j] + bi[j])
            for j in range(size):
                acc2[base + j] += xi[base + j]
        for j in range(size):
            acc2[base + j] /= n
        for s in range(rows):
            dist[lo + s] = 0.0
        for i in range(n):
            xi, ci = x2[i], center[i]
            for s in range(rows):
                row = base + numba.uint64(s * d)
                total = dist[lo + s]
                for k in range(width):
                    value = acc2[row + k]
                    xi[row + k] = value
                    diff = value - ci[k]
                    total += diff * diff
                dist[lo + s] = total


@_jit
def sq_distance(x: np.ndarray, center: np.ndarray, out: np.ndarray) -> None:
    """out[r] = Σ_i Σ_k (x[r, i, k] − center[i, k])² for x (R, n, d) of any layout (a view of a
    client-major state included), each replica's sum taken in (i, k) order: the same numbers
    whatever the layout, without the copy a numpy form needs. The loop runs client by client
    over every replica's row, so the rows' sums are independent chains the processor overlaps
    (one replica's 400 additions in a row would wait on each other)."""
    R, n, d = x.shape
    width = numba.uint64(d)
    for r in range(R):
        out[r] = 0.0
    for i in range(n):
        ci = center[i]
        for r in range(R):
            xr = x[r, i]
            total = out[r]
            for k in range(width):
                diff = xr[k] - ci[k]
                total += diff * diff
            out[r] = total
