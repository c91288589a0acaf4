"""FedDRO algorithms (Algorithm 1 Cases I/II, Theorem 4.2's modified FedAvg, Algorithm 2): the
fix of the counterexample, exact tracking, reproducibility, the run document, the defaults
read from the encoded Theorem 5.1, and the simulator against the exact round map."""

# ruff: noqa: E741  (I is the paper's number of local steps, Algorithm 1 [L167])

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.problems.feddro import make
from fedbounds.verify.algorithm import run_document
from fedbounds.verify.algorithms.feddro import (
    FEDAVG_CO_CASE1,
    FEDAVG_CO_CASE2,
    FEDDRO,
    MODIFIED_FEDAVG,
    history,
    observers,
    potential_descent,
    run_feddro,
    theorem_steps,
)
from fedbounds.verify.exact.feddro import counterexample


@pytest.mark.parametrize("alg", [FEDDRO, MODIFIED_FEDAVG])
@pytest.mark.parametrize("eta", [0.04, 1 / 22])
def test_fix_converges_to_x_star_and_tracks_exactly(alg, eta: float) -> None:
    prob = make("feddro-counterexample", {})
    values = {"eta": eta, "I": 2, **({"beta": 0.3} if alg is FEDDRO else {})}
    h = history(alg.method(prob, values), 2000, observe=observers(prob, "xbar", "track"))
    assert abs(h.mean("xbar")[-1]) < 1e-12  # x* = 0 (eq. (10))
    assert np.max(h.mean("track")) == 0.0  # ȳ^t ≡ (1/K)Σ g_k(x_k^t) exactly (eq. (8))


@pytest.mark.parametrize("alg", [FEDAVG_CO_CASE1, FEDAVG_CO_CASE2])
def test_vanilla_does_not_converge_in_simulator(alg) -> None:
    prob = make("feddro-counterexample", {})
    h = history(alg.method(prob, {"eta": 0.04, "I": 2}), 2000,
                observe=observers(prob, "xbar", "grad_phi_sq"))
    assert h.mean("xbar")[::2].min() >= 0.5 and h.mean("grad_phi_sq")[-1] > 1 / 17  # [L481, L531]


@pytest.mark.parametrize(("alg", "case", "literal"), [(FEDAVG_CO_CASE2, "II", 0),
                                                       (FEDAVG_CO_CASE1, "I", 0),
                                                       (FEDAVG_CO_CASE1, "I", 1)])
def test_simulator_matches_round_map(alg, case: str, literal: int) -> None:
    prob = make("feddro-counterexample", {})
    values = {"eta": 0.02, "I": 3, **({"literal": literal} if case == "I" else {})}
    h = history(alg.method(prob, values), 12, observe=observers(prob, "xbar"))
    d = counterexample(case, 3, 0.02, rounds=4, variant="literal" if literal else "proof")
    assert np.max(np.abs(h.mean("xbar")[::3] - d["trajectory"])) < 1e-14


def test_tracking_error_contracts_by_one_minus_beta() -> None:
    # deterministic: ȳ^t − (1/K)Σg_k(x_k^t) = (1 − β)^t (ȳ⁰ − g(x̄⁰)) (from eq. (8))
    prob = make("feddro-p2", {"K": 4, "s": 0.0, "s_h": 0.0})
    h = run_feddro(prob, 30, 1, 0, ("track",), eta=0.05, beta=0.25, I=3, ybar0_offset=0.1)
    t = np.arange(31)
    assert np.allclose(h.mean("track"), 0.01 * 0.75 ** (2 * t), rtol=1e-9, atol=1e-30)


def test_reproducible_and_modified_is_beta_one() -> None:
    prob = make("feddro-p1", {"K": 4, "s": 1.0})

    def G(alg, seed: int, **values) -> np.ndarray:
        h = history(alg.method(prob, {"I": 2, "T": 200, **values}), 200, replicas=5, seed=seed,
                    observe=observers(prob, "grad_phi_sq"))
        return h.G(200)

    a, b, c = G(FEDDRO, 3), G(FEDDRO, 3), G(FEDDRO, 4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(G(MODIFIED_FEDAVG, 3, eta=0.05), G(FEDDRO, 3, eta=0.05, beta=1.0))


def test_stochastic_feddro_reduces_gradient() -> None:
    prob = make("feddro-p1", {"K": 8, "s": 1.0})
    h = run_feddro(prob, 2000, 8, 0, ("grad_phi_sq",), T=2000, I=2)
    assert h.mean("grad_phi_sq")[-1] < 0.1 * h.mean("grad_phi_sq")[0]
    ind = run_feddro(prob, 500, 4, 0, ("grad_phi_sq",), T=500, batch_independent=1)
    assert np.all(np.isfinite(ind.G(500)))


def test_defaults_from_theorem_5_1() -> None:
    # η = √(|b|K/T), β = min(1, 4B_g⁴L_f²η) (Thm 5.1); P1 with A = 0.5, s = 0: B_g = 3/2, L_f = 1/2
    prob = make("feddro-p1", {"K": 2, "A": 0.5, "C": 0.5, "s": 0.0})
    steps = theorem_steps(prob, 8192, 2)
    assert steps["eta"] == pytest.approx((4 / 8192) ** 0.5, rel=1e-15)
    assert steps["c_beta"] == pytest.approx(81 / 16) and steps["L_Phi"] == pytest.approx(9 / 8)
    config = FEDDRO.method(prob, {"T": 8192, "b": 2}).config
    assert config["eta"] == steps["eta"] and config["beta"] == pytest.approx(81 / 16 * steps["eta"])
    # an explicit η keeps β = c_βη (Lemma F.5's β^{t+1} = c_βη^t [L890])
    assert FEDDRO.method(prob, {"eta": 0.01}).config["beta"] == pytest.approx(0.0506250)
    for bad in ({"eta": 0.0}, {"beta": 0.0}, {"I": 0}, {"b": 1.5}, {"literal": 1}):
        with pytest.raises(BadInput):
            FEDDRO.method(prob, bad)


def test_run_document_and_counts() -> None:
    prob = make("feddro-p2", {"K": 4.0})
    doc = run_document(FEDDRO, "feddro-p2", prob, {"I": 2, "T": 300}, 300, 3, 0)
    assert {"constants", "config", "metrics", "summary"} <= set(doc)
    assert len(doc["metrics"]["grad_phi_sq"]) == len(doc["metrics"]["round"]) == 301
    s = doc["summary"]
    assert s["communications"] == 150 and s["iterations"] == 300  # x every I, ȳ every iteration
    assert s["samples_per_client"] == 4 * 300  # 4|b| per iteration (Alg. 2, eqs. (7), (8))
    lit = run_document(FEDAVG_CO_CASE1, "feddro-counterexample", make("feddro-counterexample", {}),
                       {"I": 2, "eta": 0.01, "literal": 1}, 6)
    assert lit["config"]["variant"] == "literal" and lit["summary"]["samples_per_client"] == 18
    dro = make("feddro-kl-dro", {"K": 4.0, "m": 20.0}, 0)
    out = run_document(FEDDRO, "feddro-kl-dro", dro, {"eta": 0.2, "beta": 0.5, "I": 2, "b": 4},
                       200, 2, 0)
    assert out["summary"]["final_grad_phi_sq"] < out["metrics"]["grad_phi_sq"][0]


def test_blow_up_is_diverged() -> None:
    prob = make("feddro-p1", {})
    doc = run_document(FEDDRO, "feddro-p1", prob, {"eta": 1e200, "beta": 0.5}, 50)
    assert doc["summary"]["diverged"] and doc["summary"]["diverged_at"] == 1
    assert "dist_sq" in doc["summary"]["reason"]


def test_potential_descent_on_the_small_B_g_instance() -> None:
    # P1 with g = 0.2x, x̄⁰ = 2, ȳ⁰ = 0 (feddro.p11): printed c_β = 4B_g⁴L_f² violates Lemma
    # F.5 at t = 0 (D_0 > 0), the repaired c_β = 4max(B_g², B_g⁴)L_f² does not
    cfg = {"problem": "p1", "K": 2, "A": 0.0, "C": 0.0, "s": 0.0, "gscale": 0.2, "x0": 2.0,
           "ybar0": 0.0, "eta_frac": 0.36, "T": 400, "R": 1, "I": 1}
    printed = potential_descent({**cfg, "c_beta": "printed"}, 0)
    repaired = potential_descent({**cfg, "c_beta": "repaired"}, 0)
    assert printed["eta"] == pytest.approx(1.0) and printed["conditions_met"]
    assert printed["max_excess"] > 1e-6 and printed["argmax_t"] == 0
    assert repaired["max_excess"] <= 1e-12 and repaired["c_beta"] == pytest.approx(0.04)
