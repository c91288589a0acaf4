"""Exact machinery of the FedSGDA-M claims (verify.exact.fedsgda): the exact STORM averages
against Monte Carlo and against the stationary floor, the periodic floors on common and
heterogeneous Hessians, and Theorem 3.12 at the realized parameters."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from fedbounds import registry
from fedbounds.problems.minmax import make_game
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.fedsgda import FEDSGDA_M, cor313_config, exact_schedule
from fedbounds.verify.exact.fedsgda import (
    averaged_method,
    periodic_floor,
    storm_exact_avg,
    storm_floor,
    thm312_realized,
)


def test_exact_storm_average_matches_monte_carlo():
    g = make_game({"M": 4, "sigma_x": 0.5, "sigma_y": 0.5, "sigma_G": 0.0}, 0)
    cfg, T = cor313_config(g.constants, 4, 256)
    tr = simulate(FEDSGDA_M.method(g, cfg), T, replicas=200)
    per = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
    exact = storm_exact_avg(*averaged_method(g, cfg), T)
    assert abs(per.mean() - exact) < 4 * per.std(ddof=1) / np.sqrt(per.size) + 1e-9


def test_exact_average_tends_to_the_stationary_floor():
    """(1/T) Σ_{t<T} E‖∇Φ‖² = floor + C/T once the transient (ρ ≈ 0.94) has died out."""
    g = make_game({"M": 4, "sigma_x": 0.5, "sigma_y": 0.5, "sigma_G": 0.0}, 0)
    g1, method = averaged_method(g, {"c_hat": 0.5, "c": 1.0, "eta": 0.1, "alpha": 0.5,
                                     "beta": 0.5, "b": 1.0, "B": 1.0})
    floor, rho = storm_floor(g1, method)
    assert 0 < floor and rho < 0.95
    excess = [T * (storm_exact_avg(g1, method, T) - floor) for T in (10**4, 10**5)]
    assert excess[0] > 0 and excess[1] == pytest.approx(excess[0], rel=1e-6)


def test_periodic_floor_vanishes_on_common_hessians():
    """(SC-CH): the averaged dynamics do not see ζ (P1), so the noise-free floor is the saddle's
    (0), for FedSGDA-M and Local SGDA alike; ζ² = 2σ_G² exactly (problems.minmax)."""
    g = make_game({"M": 4, "sigma_G": 2.0}, 0)
    cfg, _ = cor313_config(g.constants, 4, 2**12, 0)
    for config in (cfg, {**cfg, "alpha": 1.0, "beta": 1.0}):
        floor, rho, zeta_sq = periodic_floor(g, FEDSGDA_M.method(g, config))
        assert floor < 1e-20 and rho < 1 and zeta_sq == pytest.approx(8.0, rel=1e-12)


def test_momentum_suppresses_the_heterogeneity_floor():
    """(SC-HH), Cor. 3.13 schedule at N·T_0 = 2^12: FedSGDA-M's floor is far below Local SGDA's
    (α = β = 1) at the same steps (claim fedsgda.p11: ζ enters Theorem 3.12 [L247] only through
    (c_1² + c_2²)η²)."""
    g = make_game({"M": 4, "sigma_G": 2.0, "hess_spread": 0.5}, 0)
    cfg, _ = cor313_config(g.constants, 4, 2**12, 0)
    f_m, _, _ = periodic_floor(g, FEDSGDA_M.method(g, cfg))
    f_local, _, _ = periodic_floor(g, FEDSGDA_M.method(g, {**cfg, "alpha": 1.0, "beta": 1.0}))
    assert 0 < f_m < 1e-3 * f_local
    with pytest.raises(ValueError, match="noise-free"):
        periodic_floor(g, FEDSGDA_M.method(make_game({"M": 4, "sigma_x": 1.0}, 0), cfg))


def test_exact_schedule_keeps_the_l910_condition_exact():
    """Theorem 3.12 [L245] at ν = 0: c = 1/(6κ), ĉ = 1/(54κ³), so ĉ = c/(9κ²) holds exactly
    (Appendix C.2 [L910])."""
    thm = registry.get("fedsgda.thm3.12.corrected")
    L_f, mu = 1.5000000000000004, 1.0
    st = exact_schedule(thm, ("c", "c_hat"), {"L_f": L_f, "mu": mu, "nu": 0})
    kappa = Fraction(L_f) / Fraction(mu)
    assert st["c_hat"] == st["c"] / (9 * kappa**2)


def test_theorem_312_at_the_realized_parameters():
    """P3's first run (κ = 1.5, N = 4, N·T_0 = 256, ν = 0, R1): T = κ³T_0 = 216,
    Q = round(64^{1/3}/4^{2/3}) = 2, B = ⌈4κ/4^{2/3}⌉ = 3, b = 1; η = 1/(20QL_f) = 1/60 binds."""
    g = make_game({"M": 4, "sigma_x": math.sqrt(0.5), "sigma_y": math.sqrt(0.5),
                   "sigma_G": 1.0}, 0)
    st = thm312_realized(g, "R1", 256)
    assert (st["T"], st["cfg"]["Q"], st["cfg"]["B"], st["cfg"]["b"]) == (216, 2, 3, 1)
    assert st["eta_binding"] == "eta <= 1/(20QL)"
    assert st["cfg"]["eta"] == pytest.approx(1 / (40 * g.constants["L_f"]), rel=1e-12)
    assert st["bound"].feasible and st["bound"].value > 0
    r2 = thm312_realized(g, "R2", 256)  # printed: L = L_f(1 + κ) makes η smaller
    assert r2["theorem"] == "fedsgda.thm3.12" and r2["cfg"]["eta"] < st["cfg"]["eta"]
