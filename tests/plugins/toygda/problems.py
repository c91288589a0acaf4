"""One problem: the linear operator F(z) = J z − J z* on R² with J = [[μ, b], [−b, μ]], which is
exactly μ-strongly monotone (sym J = μI) and L-Lipschitz with L = √(μ² + b²)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fedbounds.params import Param
from fedbounds.problems.base import ProblemEntry


@dataclass(frozen=True)
class RotationGame:
    J: np.ndarray
    z_star: np.ndarray
    constants: dict[str, float]


def rotation_game(params: dict[str, float], seed: int = 0) -> RotationGame:
    mu, b = float(params.get("mu", 1.0)), float(params.get("b", 2.0))
    J = np.array([[mu, b], [-b, mu]])
    z_star = np.random.default_rng(seed).standard_normal(2)
    return RotationGame(J, z_star, {"mu": mu, "L": math.hypot(mu, b)})


PROBLEMS = [ProblemEntry("toy-rotation", "gda", "F(z) = J(z − z*), J = [[μ, b], [−b, μ]]",
                         rotation_game,
                         {"mu": Param(1.0, "strong monotonicity μ", low=0, low_open=True, high=1e6),
                          "b": Param(2.0, "rotation b", low=-1e6, high=1e6)})]
