"""One algorithm: GDA z ← z − γF(z) on a single client, its step size from Theorem 1's schedule."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fedbounds import registry
from fedbounds.complexity import schedule_values
from fedbounds.verify.algorithm import Algorithm, Method, Param


class GDAState(NamedTuple):
    z: np.ndarray  # (replicas, 2)


def build_gda(problem, config) -> Method[GDAState]:
    c = problem.constants
    gamma = config["gamma"]
    if gamma is None:
        gamma = schedule_values(registry.get("gda.thm1"), c)["gamma"]
    J, z_star = problem.J, problem.z_star

    def init(replicas: int, seed: int) -> GDAState:
        return GDAState(np.zeros((replicas, 2)))

    def step(state: GDAState, draws, t: int) -> tuple[GDAState, np.ndarray]:
        z = state.z - gamma * (state.z - z_star) @ J.T
        return GDAState(z), np.ones(z.shape[0])

    def dist_sq(state: GDAState) -> np.ndarray:
        return np.sum((state.z - z_star) ** 2, axis=1)

    return Method(init, step, observe={"dist_sq": dist_sq}, config={"gamma": gamma},
                  constants=c)


TOY_GDA = Algorithm("toy-gda", "gda", "GDA z ← z − γF(z)", build_gda,
                    params={"gamma": Param(None, "step size γ (default μ/L², Theorem 1)", low=0)},
                    problems=("toy-rotation",))
