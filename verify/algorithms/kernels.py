"""Fused in-place kernels of the affine-VIP steps (ProxSkip-VIP-FL, Algorithm 2 [L212–L226];
Local GDA), compiled by numba.

After the one batched matmul of a step (``G = J x`` per client, BLAS), every other pass of the
step — adding b and the noise, x̂ = x − γ(g − h), the client mean of the communicating
replicas, the control-variate update — is one loop over the chunk's numbers here, instead of
six to nine numpy passes (benchmarks/authors_game.py measures both). Each kernel performs the
numpy forms' floating-point operations in the same order, so the iterates are the same bit for
bit (tests/verify/test_executor_same_iterates.py).

Arrays are client-major: x, h, out (n, R, d) C-contiguous over every replica; G (n, c, d) holds
the chunk of replicas ``lo … lo + c − 1``; noise is (R, n, d) (the executor's draw) or a dummy
when ``noisy`` is false. No Python objects, no exceptions: an overflow gives inf, which the
executor's metrics report as ``diverged``.
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def proxskip_chunk(x: np.ndarray, h: np.ndarray, G: np.ndarray, b: np.ndarray,
                   noise: np.ndarray, noisy: bool, theta: np.ndarray, gamma: float, p: float,
                   out: np.ndarray, acc: np.ndarray, lo: int) -> None:
    """Alg. 2 on replicas lo … lo + c − 1 given G = J x: g = G + b (+ ξ);
    x̂ = x + (−γ)(g − h); where θ: x⁺ = mean_i(x̂_i − (γ/p)h_i) and h += (p/γ)(x⁺ − x̂),
    else x⁺ = x̂. Writes x⁺ into ``out`` and x̂ into G (scratch); ``acc`` (c, d) is scratch."""
    n, c, d = G.shape
    ratio, inverse = gamma / p, p / gamma
    for r in range(c):
        if theta[lo + r]:
            for k in range(d):
                acc[r, k] = 0.0
    for i in range(n):
        for r in range(c):
            row = lo + r
            if theta[row]:
                for k in range(d):
                    g = G[i, r, k] + b[i, k]
                    if noisy:
                        g += noise[row, i, k]
                    xh = x[i, row, k] + (-gamma) * (g - h[i, row, k])
                    G[i, r, k] = xh
                    acc[r, k] += xh - ratio * h[i, row, k]
            else:
                for k in range(d):
                    g = G[i, r, k] + b[i, k]
                    if noisy:
                        g += noise[row, i, k]
                    out[i, row, k] = x[i, row, k] + (-gamma) * (g - h[i, row, k])
    for r in range(c):
        if theta[lo + r]:
            for k in range(d):
                acc[r, k] /= n
    for i in range(n):
        for r in range(c):
            row = lo + r
            if theta[row]:
                for k in range(d):
                    h[i, row, k] = h[i, row, k] + inverse * (acc[r, k] - G[i, r, k])
                    out[i, row, k] = acc[r, k]


@_jit
def gda_chunk(x: np.ndarray, G: np.ndarray, b: np.ndarray, noise: np.ndarray, noisy: bool,
              gamma: float, lo: int) -> None:
    """One local (S)GDA step on replicas lo … lo + c − 1 given G = J x: x −= γ(G + b (+ ξ))."""
    n, c, d = G.shape
    for i in range(n):
        for r in range(c):
            row = lo + r
            for k in range(d):
                g = G[i, r, k] + b[i, k]
                if noisy:
                    g += noise[row, i, k]
                x[i, row, k] -= gamma * g


@_jit
def average_chunk(x: np.ndarray, acc: np.ndarray, lo: int) -> None:
    """Consensus Π on replicas lo … lo + c − 1 (c = len(acc)): every client gets the client
    mean, summed over clients in order and divided by n (as ``np.add.reduce`` then ``/=``)."""
    n, d = x.shape[0], x.shape[2]
    c = acc.shape[0]
    for r in range(c):
        for k in range(d):
            acc[r, k] = 0.0
    for i in range(n):
        for r in range(c):
            for k in range(d):
                acc[r, k] += x[i, lo + r, k]
    for r in range(c):
        for k in range(d):
            acc[r, k] /= n
    for i in range(n):
        for r in range(c):
            for k in range(d):
                x[i, lo + r, k] = acc[r, k]


@_jit
def sq_distance(x: np.ndarray, center: np.ndarray, out: np.ndarray) -> None:
    """out[r] = Σ_i Σ_k (x[r, i, k] − center[i, k])² for x (R, n, d) of any layout (a view of a
    client-major state included), summed in (i, k) order: the same numbers whatever the
    layout, without the copy a numpy form needs."""
    R, n, d = x.shape
    for r in range(R):
        total = 0.0
        for i in range(n):
            for k in range(d):
                diff = x[r, i, k] - center[i, k]
                total += diff * diff
        out[r] = total
