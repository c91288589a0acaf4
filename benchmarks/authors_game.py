"""Benchmark: fedbounds' executor against the authors' per-client loop on their deterministic
quadratic game (issue 16).

The game is rebuilt from its published construction (ProxSkip-VIP, Section 5 and the
Reproducibility Statement; generator written here from the description, not copied): n = 20
clients, each the average of m = 100 samples of the operator [[A, B], [−B, C]] with
A, C = Q diag(U[μ, L]) Qᵀ (Q Haar), B = Q' diag(U[0, L]) Q'ᵀ, L = 1, μ = 0.01, two players
of 10 coordinates (the operator is 20 × 20) and linear terms a, c ~ N(0, I) (eq. (5)), also
averaged. γ = 1/max_i ℓ_i, p = √(γ min_i μ_i); ProxSkip-VIP-FL runs ⌈400/p⌉ iterations (400
expected communications), Local GDA 400 rounds of H = round(1/p) local steps (the expected
local steps of ProxSkip-VIP-FL) and, at 64 replicas, 400 rounds of the authors' script's own
local steps (``QuadxDet.py``: n_comm // n_node = 20) at the same constant γ (their script
decreases γ; the executor's Local GDA takes a constant step).

Reference: the authors' loop re-implemented — one replica, a Python loop over clients, one
client step at a time, numpy per client — fed the coins of the executor's ``coin`` stream
(replica r uses column r). fedbounds: the executor (``verify.algorithm.simulate``) at 1, 64
and 256 replicas on the same game and coins; the iterates of the first and the last replica
are asserted equal to the reference's to 1e-12 relative. Both record Σ_i‖x_i − z*‖² every
``--record-every`` iterations (ProxSkip) or every round (Local GDA).

Timing: repetitions interleaved (reference, then fedbounds at each replica count and, at 64, the
same methods through their pure steps — the executor before the in-place path), per
replica-client step (one client's local step of one replica); ratios reference / fedbounds
with min/median/max over the repetitions. Roofline: the batched matmul of one step alone
(``(n, R, d) @ (n, d, d)``, what the executor computes per local step) and the fraction of its
throughput the executor reaches; per-step cost at 64 and 1,024 replicas.

    .venv/bin/python benchmarks/authors_game.py [--repetitions 5] [--out PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from common import summary, write_json

from fedbounds.problems.proxskip import AffineVIP, build
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.proxskip import local_method, proxskip_method
from fedbounds.verify.executor import generators

RESULTS = Path(__file__).resolve().parent / "results"
RTOL = 1e-12


# ---- the game ---------------------------------------------------------------------------------


def _spectral(rng: np.random.Generator, count: int, k: int, low: float,
              high: float) -> np.ndarray:
    """``count`` symmetric k × k matrices Q diag(U[low, high]) Qᵀ with Haar Q."""
    Q, R = np.linalg.qr(rng.standard_normal((count, k, k)))
    Q = Q * np.sign(np.diagonal(R, axis1=-2, axis2=-1))[:, None, :]
    eig = rng.uniform(low, high, size=(count, k))
    return np.einsum("cik,ck,cjk->cij", Q, eig, Q)


def authors_game(clients: int = 20, player_dim: int = 10, samples: int = 100,
                 smoothness: float = 1.0, strong: float = 0.01, seed: int = 0) -> AffineVIP:
    """The deterministic quadratic game: client i's operator is the mean over ``samples`` of
    [[A, B], [−B, C]] (A, C with eigenvalues U[strong, smoothness], B with U[0, smoothness])
    and its offset the mean of (a, c) ~ N(0, I)."""
    rng = np.random.default_rng(seed)
    k, count = player_dim, clients * samples
    A = _spectral(rng, count, k, strong, smoothness)
    B = _spectral(rng, count, k, 0.0, smoothness)
    C = _spectral(rng, count, k, strong, smoothness)
    J = np.empty((count, 2 * k, 2 * k))
    J[:, :k, :k], J[:, :k, k:], J[:, k:, :k], J[:, k:, k:] = A, B, -B, C
    offsets = rng.standard_normal((count, 2 * k))
    J = J.reshape(clients, samples, 2 * k, 2 * k).mean(axis=1)
    b = offsets.reshape(clients, samples, 2 * k).mean(axis=1)
    return build("authors-quadratic-game", J, b,
                 params={"n": clients, "m": samples, "d": 2 * k, "L": smoothness,
                         "mu": strong, "seed": seed})


def authors_steps(game: AffineVIP) -> tuple[float, float]:
    """γ = 1/max_i ℓ_i and p = √(γ min_i μ_i)."""
    gamma = 1.0 / float(game.constants["ell"])
    return gamma, math.sqrt(gamma * float(game.constants["mu"]))


# ---- the reference: the authors' per-client loop ----------------------------------------------


def reference_proxskip(game: AffineVIP, gamma: float, p: float, coins: np.ndarray,
                       record_every: int) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """ProxSkip-VIP-FL (Alg. 2) for one replica, client by client: x̂_i = x_i − γ(f_i(x_i) −
    h_i); on a coin, x_i = mean_j(x̂_j − (γ/p)h_j) and h_i += (p/γ)(x_i − x̂_i). Returns the
    final x, h (n, d) and Σ_i‖x_i − z*‖² every ``record_every`` iterations."""
    n, d = game.n, game.d
    J, b, z = game.J, game.b, game.z_star
    x = [np.zeros(d) for _ in range(n)]
    h = [np.zeros(d) for _ in range(n)]
    xhat = [np.zeros(d) for _ in range(n)]
    dist = []
    for t, communicate in enumerate(coins):
        for i in range(n):
            xhat[i] = x[i] - gamma * (J[i] @ x[i] + b[i] - h[i])
        if communicate:
            avg = sum(xhat[i] - (gamma / p) * h[i] for i in range(n)) / n
            for i in range(n):
                h[i] = h[i] + (p / gamma) * (avg - xhat[i])
                x[i] = avg
        else:
            x, xhat = xhat, x
        if (t + 1) % record_every == 0:
            dist.append(sum(float((x[i] - z) @ (x[i] - z)) for i in range(n)))
    return np.array(x), np.array(h), dist


def reference_local_gda(game: AffineVIP, gamma: float, local_steps: int,
                        rounds: int) -> tuple[np.ndarray, list[float]]:
    """Local GDA for one replica, client by client: ``local_steps`` steps x_i −= γ f_i(x_i),
    then every client gets the mean; Σ_i‖x_i − z*‖² after each round."""
    n, d = game.n, game.d
    J, b, z = game.J, game.b, game.z_star
    x = [np.zeros(d) for _ in range(n)]
    dist = []
    for _ in range(rounds):
        for i in range(n):
            for _ in range(local_steps):
                x[i] = x[i] - gamma * (J[i] @ x[i] + b[i])
        avg = sum(x) / n
        x = [avg.copy() for _ in range(n)]
        dist.append(n * float((avg - z) @ (avg - z)))
    return np.array(x), dist


def coin_matrix(p: float, iterations: int, replicas: int, seed: int) -> np.ndarray:
    """θ (iterations, replicas): the executor's ``coin`` stream drawn as it draws it."""
    rng = generators(seed, ["coin"])["coin"]
    return np.stack([rng.random(replicas) < p for _ in range(iterations)])


def _close(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| relative to max(1, max |b|)."""
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


# ---- timing -------------------------------------------------------------------------------------


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``run()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def matmul_timer(game: AffineVIP, replicas: int) -> Callable[[], float]:
    """A timer of the batched matmul (n, R, d) @ (n, d, d) (the executor's work per local
    step) into a preallocated output: each call gives the CPU seconds of one matmul, the mean
    of 50."""
    n, d = game.n, game.d
    x = np.random.default_rng(1).standard_normal((n, replicas, d))
    JT = np.ascontiguousarray(game.J.transpose(0, 2, 1))
    out = np.empty_like(x)

    def seconds() -> float:
        start = time.process_time()
        for _ in range(50):
            np.matmul(x, JT, out=out)
        return (time.process_time() - start) / 50

    return seconds


def run_proxskip(game: AffineVIP, gamma: float, p: float, iterations: int, replicas: int,
                 seed: int, record_every: int, pure: bool = False):
    """ProxSkip-VIP-FL through the executor, recording Σ_i‖x_i − z*‖² (as the reference);
    ``pure``: through its pure step instead of its in-place ``advance``."""
    method = proxskip_method(game, gamma, p)
    if pure:
        method = method.pure()
    return simulate(method, iterations, replicas=replicas, seed=seed, record_every=record_every,
                    observe={"dist_sq": method.observe["dist_sq"]})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--replicas", type=int, nargs="+", default=[1, 64, 256])
    ap.add_argument("--large", type=int, default=1024, help="replicas of the cache check")
    ap.add_argument("--communications", type=int, default=400)
    ap.add_argument("--record-every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=RESULTS / "authors_game.json",
                    help="JSON results (default benchmarks/results/authors_game.json)")
    a = ap.parse_args()

    game = authors_game(seed=a.seed)
    gamma, p = authors_steps(game)
    n, d = game.n, game.d
    iterations = math.ceil(a.communications / p)
    H = max(1, round(1 / p))
    H_script = a.communications // n  # QuadxDet.py: local_step = int(n_comm / n_node)
    rounds = a.communications
    print(f"authors' game: n={n} d={d} gamma={gamma:.4g} p={p:.4g}; ProxSkip-VIP-FL "
          f"{iterations} iterations, Local GDA {rounds} rounds x H={H} (and x H={H_script}, "
          "the local steps of the authors' script)", flush=True)

    # iterates: the reference on the first and last replica of every replica count
    checks = {}
    for R in a.replicas:
        coins = coin_matrix(p, iterations, R, a.seed)
        tr = run_proxskip(game, gamma, p, iterations, R, a.seed, a.record_every)
        worst = 0.0
        for r in sorted({0, R - 1}):
            x, h, dist = reference_proxskip(game, gamma, p, coins[:, r], a.record_every)
            worst = max(worst, _close(tr.state.x[r], x), _close(tr.state.h[r], h),
                        _close(tr.metrics["dist_sq"][1:len(dist) + 1, r], np.array(dist)))
            assert int(tr.communications[-1, r]) == int(coins[:, r].sum())
        worst_local = {}
        for name, steps in (("local_gda", H), ("local_gda_script_H", H_script)):
            lg = simulate(local_method(game, gamma, steps), rounds, replicas=R, seed=a.seed)
            xl, distl = reference_local_gda(game, gamma, steps, rounds)
            worst_local[name] = max(_close(lg.state.x[0], xl),
                                    _close(lg.metrics["dist_sq"][1:, 0], np.array(distl)))
        assert worst <= RTOL and max(worst_local.values()) <= RTOL, (R, worst, worst_local)
        checks[R] = {"proxskip": worst, **worst_local}
    print("iterates equal to the reference: max relative difference "
          + ", ".join(f"R={R}: {v['proxskip']:.1e} / {v['local_gda']:.1e} / "
                      f"{v['local_gda_script_H']:.1e}"
                      for R, v in checks.items()), flush=True)

    # interleaved repetitions: wall and CPU time (process_time: less sensitive to other
    # processes on a shared machine) per replica-client step
    coins1 = coin_matrix(p, iterations, 1, a.seed)[:, 0]
    runs: dict[str, Callable[[int], object]] = {
        "proxskip": lambda R: run_proxskip(game, gamma, p, iterations, R, a.seed,
                                           a.record_every),
        "local_gda": lambda R: simulate(local_method(game, gamma, H), rounds, replicas=R,
                                        seed=a.seed),
        "local_gda_script_H": lambda R: simulate(local_method(game, gamma, H_script), rounds,
                                                 replicas=R, seed=a.seed)}
    # the script's H: at 64 replicas only (a round of 20 local steps is 10 rounds' worth of H = 2)
    counts = {"proxskip": a.replicas, "local_gda": a.replicas,
              "local_gda_script_H": [R for R in a.replicas if R == 64]}
    # the same methods through their pure steps (the executor before Method.advance), at 64
    pure = {"proxskip": lambda R: run_proxskip(game, gamma, p, iterations, R, a.seed,
                                               a.record_every, pure=True),
            "local_gda": lambda R: simulate(local_method(game, gamma, H).pure(), rounds,
                                            replicas=R, seed=a.seed)}
    references: dict[str, Callable[[], object]] = {
        "proxskip": lambda: reference_proxskip(game, gamma, p, coins1, a.record_every),
        "local_gda": lambda: reference_local_gda(game, gamma, H, rounds),
        "local_gda_script_H": lambda: reference_local_gda(game, gamma, H_script, rounds)}
    client_steps = {"proxskip": iterations * n, "local_gda": rounds * H * n,
                    "local_gda_script_H": rounds * H_script * n}
    ref = {m: {"wall": [], "cpu": []} for m in runs}
    ours = {m: {R: {"wall": [], "cpu": []} for R in counts[m]} for m in runs}
    before = {m: {"wall": [], "cpu": []} for m in pure}
    for _ in range(a.repetitions):
        for method in runs:
            wall, cpu = timed(references[method])
            ref[method]["wall"].append(wall / client_steps[method])
            ref[method]["cpu"].append(cpu / client_steps[method])
            for R in counts[method]:
                wall, cpu = timed(lambda R=R, method=method: runs[method](R))
                ours[method][R]["wall"].append(wall / (client_steps[method] * R))
                ours[method][R]["cpu"].append(cpu / (client_steps[method] * R))
            if method not in pure:
                continue
            wall, cpu = timed(lambda method=method: pure[method](64))
            before[method]["wall"].append(wall / (client_steps[method] * 64))
            before[method]["cpu"].append(cpu / (client_steps[method] * 64))

    rows = []
    result: dict = {"game": {"n": n, "d": d, "gamma": gamma, "p": p, "iterations": iterations,
                             "H": H, "H_script": H_script, "rounds": rounds,
                             "record_every": a.record_every,
                             "seed": a.seed},
                    "machine": {"python": platform.python_version(), "numpy": np.__version__,
                                "processor": platform.processor() or platform.machine(),
                                "cores": os.cpu_count(), "load_average": os.getloadavg()},
                    "iterates_max_relative_difference": checks, "methods": {}}
    for method in runs:
        entry: dict = {"reference_seconds_per_client_step": {
            k: summary(v) for k, v in ref[method].items()}, "fedbounds": {}}
        for R in counts[method]:
            per = ours[method][R]
            ratios = {k: summary([r / o for r, o in zip(ref[method][k], per[k], strict=True)])
                      for k in per}
            entry["fedbounds"][R] = {"seconds_per_replica_client_step": {
                k: summary(v) for k, v in per.items()}, "ratio": ratios}
            rows.append((method, R, statistics.median(ref[method]["cpu"]),
                         statistics.median(per["cpu"]), ratios))
        if method not in pure:
            result["methods"][method] = entry
            continue
        per = before[method]
        ratios = {k: summary([r / o for r, o in zip(ref[method][k], per[k], strict=True)])
                  for k in per}
        entry["pure_steps_64"] = {"seconds_per_replica_client_step": {
            k: summary(v) for k, v in per.items()}, "ratio": ratios}
        rows.append((method, "64 (pure steps)", statistics.median(ref[method]["cpu"]),
                     statistics.median(per["cpu"]), ratios))
        result["methods"][method] = entry

    # roofline and cache: per step at 64 and the large replica count; each repetition times
    # the batched matmul and then both methods, and its fraction is matmul / step of that
    # repetition (the machine's speed drifts: paired ratios, as for the reference above)
    roof = {}
    for R in sorted({64, a.large}):
        matmul = matmul_timer(game, R)
        per: dict[str, list[float]] = {"matmul": [], "proxskip": [], "local_gda": []}
        for _ in range(a.repetitions):
            per["matmul"].append(matmul())
            per["proxskip"].append(timed(lambda R=R: runs["proxskip"](R))[1] / iterations)
            per["local_gda"].append(timed(lambda R=R: runs["local_gda"](R))[1] / (rounds * H))
        fractions = {m: summary([mm / v for mm, v in zip(per["matmul"], per[m], strict=True)])
                     for m in ("proxskip", "local_gda")}
        step, lstep = statistics.median(per["proxskip"]), statistics.median(per["local_gda"])
        roof[R] = {"matmul_seconds": statistics.median(per["matmul"]),
                   "proxskip_step_seconds": step, "local_gda_step_seconds": lstep,
                   "proxskip_fraction": fractions["proxskip"],
                   "local_gda_fraction": fractions["local_gda"],
                   "proxskip_seconds_per_replica_step": step / R,
                   "local_gda_seconds_per_replica_step": lstep / R}
        # the ratio to the reference an executor would reach if a local step cost only its
        # batched matmul (the matmul covers R·n replica-client steps)
        roof[R]["ratio_at_the_matmul"] = {
            m: statistics.median(ref[m]["cpu"]) / (roof[R]["matmul_seconds"] / (R * n))
            for m in runs}
    result["roofline"] = roof

    names = {"proxskip": "ProxSkip-VIP-FL", "local_gda": f"Local GDA, H = {H}",
             "local_gda_script_H": f"Local GDA, H = {H_script} (the authors' script)"}
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU time "
          "(process_time) medians over interleaved repetitions")
    print("\n| method | replicas | authors' loop per client step | fedbounds per replica-client "
          "step | ratio (CPU) min / median / max | ratio (wall) median |")
    print("|---|---|---|---|---|---|")
    for method, R, r_med, o_med, ratio in rows:
        c, w = ratio["cpu"], ratio["wall"]
        print(f"| {names[method]} | {R} | {r_med * 1e6:.2f} µs | {o_med * 1e9:.0f} ns | "
              f"{c['min']:.0f}× / {c['median']:.0f}× / {c['max']:.0f}× | {w['median']:.0f}× |")
    print("\n| replicas | batched matmul per step | ProxSkip-VIP-FL step (fraction min / "
          "median / max) | Local GDA local step (fraction min / median / max) | "
          "ProxSkip-VIP-FL per replica step | ratio at the matmul alone: ProxSkip-VIP-FL / "
          f"Local GDA, H = {H} / H = {H_script} |")
    print("|---|---|---|---|---|---|")

    def fraction(f: dict[str, float]) -> str:
        return f"{f['min']:.0%} / {f['median']:.0%} / {f['max']:.0%}"

    for R, v in roof.items():
        print(f"| {R} | {v['matmul_seconds'] * 1e6:.1f} µs | "
              f"{v['proxskip_step_seconds'] * 1e6:.1f} µs ({fraction(v['proxskip_fraction'])}) "
              f"| {v['local_gda_step_seconds'] * 1e6:.1f} µs "
              f"({fraction(v['local_gda_fraction'])}) | "
              f"{v['proxskip_seconds_per_replica_step'] * 1e9:.0f} ns | "
              f"{v['ratio_at_the_matmul']['proxskip']:.0f}× / "
              f"{v['ratio_at_the_matmul']['local_gda']:.0f}× / "
              f"{v['ratio_at_the_matmul']['local_gda_script_H']:.0f}× |")
    write_json(a.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
