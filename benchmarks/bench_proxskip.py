"""Benchmark: vectorized executor vs a plain per-client Python loop for ProxSkip-GDA-FL.

The paper's quadratic game, eq. (5) (Section 5 [L282]: n = 20 clients, d = 20, m = 100 samples
per client), g_i = f_i (deterministic oracle), γ = 1/(2ℓ), p = √(γμ) (Table G, Appendix G
[L786]), 1000 iterations,
64 replicas. Both implementations draw the coins θ_t from the same generator
(``verify.executor.generators(seed, ["coin"])``), record Σ_i‖x_i − z*‖² every iteration, and
must produce the same iterates (to round-off: the vectorized matmul and the per-client
matvec may round the last bit differently; the check is ≤ 1e-12 relative, and the coin draws and
communication counts are identical). Run: ``python benchmarks/bench_proxskip.py``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fedbounds.problems.proxskip import AffineVIP
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.proxskip import gda_steps, proxskip_method
from fedbounds.verify.executor import generators


def plain_loop(problem: AffineVIP, gamma: float, p: float, iterations: int, replicas: int,
               seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Alg. 2 [L212–L226] written client by client and replica by replica."""
    n, d = problem.n, problem.d
    J, b, z = problem.J, problem.b, problem.z_star
    coin = generators(seed, ["coin"])["coin"]
    x = [[np.zeros(d) for _ in range(n)] for _ in range(replicas)]
    h = [[np.zeros(d) for _ in range(n)] for _ in range(replicas)]
    dist = np.empty((iterations + 1, replicas))
    for r in range(replicas):
        dist[0, r] = sum(float(np.dot(x[r][i] - z, x[r][i] - z)) for i in range(n))
    comms = 0
    for t in range(iterations):
        theta = coin.random(replicas) < p
        for r in range(replicas):
            xhat = []
            for i in range(n):
                g = J[i] @ x[r][i] + b[i]
                xhat.append(x[r][i] - gamma * (g - h[r][i]))
            if theta[r]:
                comms += 1
                s = xhat[0] - (gamma / p) * h[r][0]
                for i in range(1, n):
                    s = s + (xhat[i] - (gamma / p) * h[r][i])
                avg = s / n
                for i in range(n):
                    x[r][i] = avg.copy()
                    h[r][i] = h[r][i] + (p / gamma) * (x[r][i] - xhat[i])
            else:
                for i in range(n):
                    x[r][i] = xhat[i]
            dist[t + 1, r] = sum(float(np.dot(x[r][i] - z, x[r][i] - z)) for i in range(n))
    return np.array(x), np.array(h), dist, comms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--replicas", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--dim", type=int, default=20)
    ap.add_argument("--samples", type=int, default=100)
    a = ap.parse_args()
    from fedbounds.problems.proxskip import quadratic_game

    prob = quadratic_game(n=a.clients, m=a.samples, d=a.dim, seed=a.seed)
    c = prob.constants
    gamma, p = gda_steps(prob)  # Cor. 3.6's schedule: γ = 1/(2ℓ), p = √(γμ)
    print(f"quadratic game n={prob.n} d={prob.d} m={a.samples}: mu={c['mu']:.4g} "
          f"ell={c['ell']:.4g} gamma={gamma:.4g} p={p:.4g}; T={a.iterations}, "
          f"R={a.replicas}")

    t0 = time.perf_counter()
    tr = simulate(proxskip_method(prob, gamma, p), a.iterations, replicas=a.replicas,
                  seed=a.seed)
    t_vec = time.perf_counter() - t0
    t0 = time.perf_counter()
    x, h, dist, comms = plain_loop(prob, gamma, p, a.iterations, a.replicas, a.seed)
    t_loop = time.perf_counter() - t0

    xv, hv = tr.state
    dx = float(np.max(np.abs(xv - x)))
    dh = float(np.max(np.abs(hv - h)))
    dd = float(np.max(np.abs(tr.metrics["dist_sq"] - dist)))
    identical = dx == 0 and dh == 0 and dd == 0
    print(f"max |x diff| = {dx:.3g}, max |h diff| = {dh:.3g}, max |dist_sq diff| = {dd:.3g}, "
          f"communications {int(tr.communications[-1].sum())} vs {comms}"
          + (" (bitwise identical)" if identical else ""))
    assert int(tr.communications[-1].sum()) == comms, "communication counts differ"
    scale = max(1.0, float(np.max(np.abs(x))))
    assert dx <= 1e-12 * scale and dh <= 1e-12 * max(1.0, float(np.max(np.abs(h)))), \
        "iterates differ"
    ratio = t_loop / t_vec
    print(f"executor {t_vec:.3f} s, plain loop {t_loop:.3f} s, speed ratio {ratio:.1f}x "
          f"(target >= 20x)")


if __name__ == "__main__":
    main()
