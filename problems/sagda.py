"""SAGDA's theorem inputs, exact on the quadratic games of :mod:`fedbounds.problems.minmax`
(Assumptions 1–4 [L67–L86, L205–L207]).

The games have identical Hessians and linear terms b_i = b₀ + σ_G e_i, c_i = c₀ + σ_G e'_i, so
every input of Theorems 1–2 is known in closed form; the Lyapunov gap 𝓛_0 − 𝓛_* is the smallest
valid one (𝓛_* = inf 𝓛; 𝓛_* is undefined in Theorems 1–2, erratum lyapunov-star).
"""

from __future__ import annotations

import math
from fractions import Fraction

from .minmax import MinMaxGame

INPUTS_NOTE = ("L_f = max_i ‖H_i‖₂ (joint Hessian of f_i, Assumption 1), μ = λ_min(C) (strong "
               "concavity ⇒ PL, Assumption 2); σ_x, σ_y exact (additive Gaussian noise with "
               "E‖ξ_x‖² = σ_x², E‖ξ_y‖² = σ_y², Assumption 3); σ_{x,G}² = (1/M)Σ‖b_i − b̄‖², "
               "σ_{y,G}² = (1/M)Σ‖c_i − c̄‖² — the exact (1/M)Σ_i‖∇_x f_i − ∇_x f‖² since the "
               "Hessians are identical (Assumption 4 read as the client average, as in the "
               "proof of Lemma 4 [L604]); "
               "D_0 = 𝓛_0 − 𝓛_* with 𝓛 = Φ − f/10 at z_0 and 𝓛_* = inf 𝓛 = (9/10)Φ(x*) "
               "(closed-form Φ), the smallest valid 𝓛_* (erratum lyapunov-star)")

# games on which the constants of Φ are checked (claim sagda.p3): name, make_game parameters
PHI_TEST_GAMES = [("default", {}), ("scalar a=b=μ=1", {"dx": 1, "dy": 1, "a_ratio": 1.0}),
                  ("strong coupling", {"bxy": 3.0, "c_ratio": 4.0}),
                  ("indefinite A", {"a_ratio": -1.0, "bxy": 2.0}),
                  ("weak coupling", {"bxy": 0.2, "mu": 2.0}),
                  ("dx=4, dy=3", {"dx": 4, "dy": 3, "bxy": 1.5})]


def objective(g: MinMaxGame, z) -> float:
    """f(x, y) = (1/M) Σ f_i(x, y) of the game (σ-free, λ = 0) at one point z = (x, y)."""
    A, B, C, b, c = g.mean_blocks()
    x, y = z[: g.dx], z[g.dx:]
    return float(0.5 * x @ A @ x + x @ B @ y - 0.5 * y @ C @ y + b @ x - c @ y)


def lyapunov_gap(g: MinMaxGame) -> float:
    """D_0 = 𝓛_0 − 𝓛_* exactly: 𝓛(z) = Φ(x) − f(z)/10 = (9/10)Φ(x) + (Φ(x) − f(z))/10 ≥ (9/10)Φ(x*),
    with equality at the saddle z*, so 𝓛_* = inf 𝓛 = (9/10)Φ(x*) ≤ E𝓛_T (derived here;
    𝓛_t as in Theorem 1 [L143])."""
    x0 = g.z0[: g.dx]
    return float(g.phi(x0)) - objective(g, g.z0) / 10 - 0.9 * float(g.phi(g.z_star()[: g.dx]))


def abstract_inputs(L_f: float, mu: float, K: int, M: int, m: int) -> dict[str, Fraction]:
    """The structural inputs L_f, μ, K, M, m of Theorems 1–2 as exact fractions."""
    return {"L_f": Fraction(L_f), "mu": Fraction(mu), "K": Fraction(K), "M": Fraction(M),
            "m": Fraction(m)}


def theorem_inputs(g: MinMaxGame, K: int, m: int) -> dict[str, Fraction]:
    """Every problem input of Theorems 1–2, exact from the game (see :data:`INPUTS_NOTE`)."""
    k = g.constants
    return {**abstract_inputs(k["L_f"], k["mu"], K, g.M, m), "sigma_x": Fraction(g.sigma_x),
            "sigma_y": Fraction(g.sigma_y), "sigma_xG": Fraction(math.sqrt(k["sigma_xG_sq"])),
            "sigma_yG": Fraction(math.sqrt(k["sigma_yG_sq"])), "D_0": Fraction(lyapunov_gap(g))}
