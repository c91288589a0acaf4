"""Transitional: the pre-redesign min-max API (``Compiled`` bundles), kept only until every
min-max paper runs on :mod:`fedbounds.verify.minmax` and :mod:`fedbounds.verify.exact.minmax`.
Do not use in new code; this module is deleted at the end of the redesign."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
from fedbounds.problems.minmax import MinMaxGame

from .exact.minmax import (  # noqa: F401
    affine_round,
    fixed_point,
    grad_phi_affine,
    quad_expect,
    sampled_moments,
)
from .executor import Trace, execute
from .minmax import (  # noqa: F401
    as_taus,
    client_draw,
    client_grad,
    gather,
    local_steps,
    noise_draw,
    noisy_grad,
    pair,
    project_y,
    sampled,
    server_observe,
    signed,
)

State = tuple[np.ndarray, ...]


# ---- metrics and runs ---------------------------------------------------------------------------
def server_metrics(g: MinMaxGame, z_of: Callable[[State], np.ndarray],
                   w: np.ndarray | None = None) -> dict[str, Callable[[State], np.ndarray]]:
    """Legacy form of :func:`fedbounds.verify.minmax.server_observe` over ``z_of(state)``."""
    observe = server_observe(g, w)
    return {k: (lambda st, f=f: f(SimpleNamespace(z=z_of(st)))) for k, f in observe.items()}


@dataclass
class Compiled:
    """One algorithm bound to a game and configuration, ready for :func:`verify.executor.execute`."""

    state: State
    step: Callable[[State, dict[str, Any], int], tuple[State, np.ndarray]]
    streams: dict[str, Callable[[np.random.Generator, int], Any]]
    z_of: Callable[[State], np.ndarray]  # server model (R, d)
    samples_per_round: float  # stochastic gradients per participating client per round
    config: dict[str, Any] = field(default_factory=dict)
    w: np.ndarray | None = None  # weights of the objective measured (None: the game's p)


def simulate(c: Compiled, g: MinMaxGame, rounds: int, seed: int, replicas: int,
             record_every: int = 1, metrics: dict | None = None) -> Trace:
    """Execute with the standard server metrics (or ``metrics``)."""
    return execute(c.state, c.step, rounds, replicas=replicas, seed=seed, streams=c.streams,
                   metrics=metrics or server_metrics(g, c.z_of, c.w), record_every=record_every)


def run_doc(c: Compiled, g: MinMaxGame, rounds: int, seeds: int, seed: int,
            record_every: int = 1) -> dict[str, Any]:
    """DESIGN "Runs" fields: constants, config, metrics (replica means per record), summary."""
    tr = simulate(c, g, rounds, seed, seeds, record_every)
    metrics = {k: v.mean(axis=1).tolist() for k, v in tr.metrics.items()}
    gp = tr.metrics["grad_phi_sq"].mean(axis=1)
    summary: dict[str, Any] = {
        "avg_grad_phi_sq": float(gp[:-1].mean()) if gp.size > 1 else float(gp[0]),
        "final_grad_phi_sq": float(gp[-1]),
        "communications": float(tr.communications[-1].mean()),
        "samples_per_client": float(c.samples_per_round * tr.iterations[-1]),
        "diverged": tr.diverged, "seconds": tr.seconds}
    if "dist_sq" in tr.metrics:
        summary["final_dist_sq"] = float(tr.metrics["dist_sq"][-1].mean())
    if tr.diverged:
        summary.update(diverged_at=tr.diverged_at, reason=tr.reason)
    metrics["round"] = tr.iterations.tolist()
    return {"constants": dict(g.constants), "config": c.config, "metrics": metrics,
            "summary": summary}


def replicate(state: State, R: int) -> State:
    return tuple(np.repeat(s[None], R, 0) if s.ndim < 3 and s.shape[0] != R else s for s in state)


# ---- exact round maps of compiled algorithms -------------------------------------------------------
def round_map(build: Callable[[int], Compiled], M: int, S: np.ndarray | None = None
              ) -> Callable[[np.ndarray], np.ndarray]:
    """The deterministic round map z_t ↦ z_{t+1} of ``build(replicas)`` at t = 0 (client set S,
    default all), evaluated on the rows of Z (replicas)."""
    def f(Z: np.ndarray) -> np.ndarray:
        c = build(Z.shape[0])
        u = np.ones((Z.shape[0], M))
        u[:, np.arange(M) if S is None else S] = 0.0
        st = (Z.copy(),) + tuple(c.state[1:])
        new, _ = c.step(st, {"clients": u}, 0)
        return c.z_of(new)
    return f


def with_start(c: Compiled, z: np.ndarray) -> Compiled:
    """Start every replica at z (e.g. the saddle, to measure stationary floors without transient)."""
    st = list(c.state)
    st[0] = np.broadcast_to(z, st[0].shape).copy()
    return Compiled(tuple(st), c.step, c.streams, c.z_of, c.samples_per_round, c.config, c.w)


def rerun(algorithm: str, problem: str, pset: dict[str, Any], aset: dict[str, Any], rounds: int,
          seeds: int, seed: int) -> dict[str, Any]:
    """Config dict for ``fedbounds run`` (issue #5 acceptance 4)."""
    return {"algorithm": algorithm, "problem": problem, "set": {**pset, **aset}, "rounds": rounds,
            "seeds": seeds, "seed": seed}
