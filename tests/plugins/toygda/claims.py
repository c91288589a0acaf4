"""One claim: the observed ‖z_t − z*‖² never exceeds Theorem 1's bound (1 − γμ)^t ‖z_0 − z*‖²."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fedbounds import engine, registry
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.claim import FigureSpec, Measurement, RunConfig, UpperBound, claim

from .algorithms import TOY_GDA
from .problems import rotation_game


@claim("gda.p1", title="GDA stays below the Theorem 1 bound",
       prediction="‖z_t − z*‖² ≤ (1 − γμ)^t ‖z_0 − z*‖² for every t at γ = μ/L²",
       source="Theorem 1", provenance="paper", theorems=("gda.thm1",),
       rule=UpperBound(1.0, rtol=1e-9),
       params={"T": 40, "b": 2.0, "rate_scale": 1.0}, perturb={"rate_scale": 2.0},
       figure=FigureSpec("GDA against Theorem 1", "iteration t", "‖z_t − z*‖²"))
def p1(params, seed: int) -> Measurement:
    """Worst ratio observed/bound over t = 1..T (the bound is tight for this normal J)."""
    problem = rotation_game({"mu": 1.0, "b": params["b"]}, seed)
    method = TOY_GDA.method(problem)
    trace = simulate(method, params["T"], seed=seed)
    t = trace.iterations
    d0 = float(trace.metrics["dist_sq"][0, 0])
    values = {**problem.constants, "gamma": method.config["gamma"], "D_0": d0}
    thm = registry.get("gda.thm1")
    exact = {k: Fraction(v) for k, v in values.items()}
    contraction = 1 - params["rate_scale"] * (1 - engine.bound(thm, {**exact, "T": 1}).value / d0)
    bound = d0 * contraction ** t
    ratio = trace.metrics["dist_sq"][1:, 0] / bound[1:]
    return Measurement(float(np.max(ratio)),
                       series={"observed": (t.tolist(), trace.metrics["dist_sq"][:, 0].tolist()),
                               "bound": (t.tolist(), bound.tolist())},
                       evidence={"gamma": method.config["gamma"], "contraction": contraction},
                       run=RunConfig("toy-gda", "toy-rotation", {"b": params["b"]},
                                     rounds=params["T"], seed=seed))
