"""Fed-Norm-SGDA claims (verify/claims/fednorm.py): registration, and the numbers in the evidence of
the objective-mismatch limits (p1, p2a), the exact identity (p3), the exact partial-participation
profile (p9b) and the bound-validity claim (p20). Perturbations are covered by the generic
contract test (tests/contract/test_claims.py)."""

from __future__ import annotations

import numpy as np
import pytest

from fedbounds.verify.algorithm import Algorithm
from fedbounds.verify.algorithms.fednorm import (
    FEDNORM_SGDA,
    FEDNORM_SGDA_PLUS,
    LOCAL_SGDA,
    LOCAL_SGDA_PLUS,
)
from fedbounds.verify.claim import ClaimSpec
from fedbounds.verify.claims import fednorm

SPECS = {v.id: v for v in vars(fednorm).values() if isinstance(v, ClaimSpec)}
CHEAP = ["fednorm.p1", "fednorm.p2a", "fednorm.p3", "fednorm.p9b", "fednorm.p20"]


@pytest.fixture(scope="module")
def verdicts(quick_verdict):
    return {cid: quick_verdict(cid) for cid in CHEAP}


def test_registered_with_theorems_and_variants():
    assert list(SPECS) == ["fednorm.p1", "fednorm.p2a", "fednorm.p2b", "fednorm.p3", "fednorm.p4",
                           "fednorm.p9a", "fednorm.p9b", "fednorm.p10a", "fednorm.p10b",
                           "fednorm.p11", "fednorm.p20"]
    # readings (issue 27): p20 tests Theorem 1 with Lemma B.1's L_Φ corrected; p9, p10 run
    # outside Theorem 1's / Corollary 1.2's step-size conditions; p11 inside them
    assert SPECS["fednorm.p20"].provenance == "erratum"
    assert SPECS["fednorm.p20"].errata == ("lemmaB1-L_Phi",)
    assert SPECS["fednorm.p1"].provenance == "derived" and SPECS["fednorm.p3"].provenance == "paper"
    assert SPECS["fednorm.p11"].provenance == "paper"
    assert {c for c, s in SPECS.items() if s.provenance == "extrapolation"} == {
        "fednorm.p9a", "fednorm.p9b", "fednorm.p10a", "fednorm.p10b"}
    assert SPECS["fednorm.p20"].theorems == ("fednorm.thm1", "fednorm.thm1.corrected")
    assert fednorm.p2a.measure is fednorm.p4.measure is fednorm.p1.measure  # variants
    assert fednorm.p9b.measure is fednorm.p9a.measure
    assert fednorm.p10b.measure is fednorm.p10a.measure
    units = (LOCAL_SGDA, LOCAL_SGDA_PLUS, FEDNORM_SGDA, FEDNORM_SGDA_PLUS)
    assert all(isinstance(a, Algorithm) and a.paper == "fednorm" for a in units)
    assert [a.name for a in units] == ["local-sgda", "local-sgda-plus", "fednorm-sgda",
                                       "fednorm-sgda-plus"]  # the names `fedbounds list` shows


def test_local_sgda_goes_to_the_mismatched_saddle_and_fednorm_to_the_true_one(verdicts):
    """P1, P2: Local SGDA → z*(w), w_i ∝ p_iτ_i; Fed-Norm-SGDA → z*(p) (eq. (2))."""
    v = verdicts["fednorm.p1"]
    assert v.verdict == "confirmed" and v.config["algorithm"] == "local-sgda"
    ev = v.evidence["rho=0.0"]
    dw, dp = np.array(ev["dist_to_z_w"]), np.array(ev["dist_to_z_p"])
    assert np.all(np.diff(dw) < 0) and dw[-1] < 0.05 * dp[-1]  # → z*(w), not z*(p)
    gap = v.evidence["gap_z_w_z_p"]
    assert abs(dp[-1] - gap) < 0.05 * gap and v.figure is not None
    v2 = verdicts["fednorm.p2a"]
    ev2 = v2.evidence["rho=0.0"]
    assert v2.verdict == "confirmed" and v2.config["algorithm"] == "fednorm-sgda"
    assert ev2["dist_to_z_p"][-1] < 0.05 * ev2["dist_to_z_w"][-1]


def test_fednorm_equals_local_sgda_to_machine_precision(verdicts):
    """P3 (App. A.1): equal τ, w = p, γ^s = η^c, noisy, P < n."""
    v = verdicts["fednorm.p3"]
    assert v.verdict == "confirmed" and v.statistic < 1e-12


def test_pp_floor_profile_is_exact(verdicts):
    """P9: floor(P)/floor(1) = (n − P)/(P(n − 1)) = 1, 3/8, 1/6, 1/16 for n = 5, zero at P = n."""
    v = verdicts["fednorm.p9b"]
    assert v.verdict == "confirmed" and v.evidence["zero_at_P_eq_n"]
    # γ^s_x = γ^s_y = η^c = γ: outside the two-time-scale condition at every P < n
    assert v.conditions["status"] == "fail" and v.provenance == "extrapolation"
    assert all("B.5: gamma_sx <= gamma_sy/(81 kappa^2)" in [c["name"] for c in r["failing"]]
               for r in v.conditions["runs"])
    np.testing.assert_allclose(v.evidence["profile_measured"], [1, 3 / 8, 1 / 6, 1 / 16],
                               rtol=1e-9)


def test_p20_measures_the_implied_constant_over_the_grid(verdicts):
    """P20: Theorem 1 as an O(·) statement: observed/bound at max-step steps along κ, n, τ,
    σ_G (sup over T) and T, decided by the slope of each axis' far end."""
    v = verdicts["fednorm.p20"]
    ev, ic = v.evidence, v.evidence["implied_constant"]
    assert set(ic["slopes"]) == {"kappa", "n", "tau_eff", "sigma_G", "T"}
    assert set(v.config) >= {"algorithm", "problem", "set", "rounds", "seeds", "seed"}
    rows = [r for rs in ev["grid"].values() for r in rs]
    assert all(r["conditions_hold"] for r in rows)
    # every distinct grid point is checked against fednorm.thm1.corrected, and holds
    assert v.conditions["status"] == "hold" and len(v.conditions["runs"]) == 13
    assert {r["theorem"] for r in v.conditions["runs"]} == {"fednorm.thm1.corrected"}
    assert all(set(r["steps"]) == {"gamma_sy", "gamma_sx", "eta_cy", "eta_cx"} for r in rows)
    # the steps honour the two-time-scale condition γ^s_x ≤ γ^s_y/(81κ²) at every point
    assert all(r["steps"]["gamma_sx"] <= r["steps"]["gamma_sy"] / (81 * r["kappa"] ** 2)
               * (1 + 1e-9) for r in rows)
    kappas = [r["kappa"] for r in ev["grid"]["kappa"]]
    assert kappas == sorted(kappas) and kappas[-1] / kappas[0] > 50
    # constants 1 are far exceeded (≈ 48 at the base point), yet c stays below 81 =
    # γ^s_y/(γ^s_x κ²): Δ is charged at γ^s_y while x moves at γ^s_x (the reading)
    assert 10 < ic["largest"] < 81
    worst = max(ic["uniform"], key=lambda d: ic["slopes"][d]["lo"])
    assert v.statistic == pytest.approx(ic["slopes"][worst]["slope"])
    assert v.verdict == ic["verdict"]


def test_p20_exact_averages_match_a_monte_carlo_run():
    """The closed-form (1/T)Σ E‖∇Φ(x_t)‖² the claim decides on is what a simulation measures."""
    from fedbounds import registry
    from fedbounds.problems.minmax import make_game
    from fedbounds.verify.algorithm import simulate
    from fedbounds.verify.algorithms.fednorm import taus
    from fedbounds.verify.exact import fednorm as exact

    g = make_game(fednorm.P20_SET, 0)
    inputs = exact.thm1_inputs(g, taus(g, fednorm.P20_ALG), fednorm.P20_ALG["P"])
    steps, _ = fednorm.p20_steps(registry.get("fednorm.thm1.corrected"), inputs)
    cfg = {**fednorm.P20_ALG, **steps}
    T = 300
    average = fednorm.grad_phi_average(g, cfg, fednorm.P20_ALG["P"])(T)
    tr = simulate(FEDNORM_SGDA.method(g, cfg), T, replicas=64, seed=5)
    per = tr.metrics["grad_phi_sq"][:-1].mean(axis=0)
    se = per.std(ddof=1) / np.sqrt(per.size)
    assert abs(per.mean() - average) < 4 * se + 1e-9 * average


def test_p20_refutes_a_bound_missing_a_factor_kappa():
    """The perturbation plants a factor κ⁻¹ in the bound: c then grows like κ and is refuted
    (while the encoded bound is not, see above)."""
    v = fednorm.p20.run("quick", 0, **fednorm.p20.perturb)
    ic = v.evidence["implied_constant"]
    assert v.verdict == "refuted" and ic["growing"] == ["kappa"]
    assert ic["slopes"]["kappa"]["lo"] > 0.5
