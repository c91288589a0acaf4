"""FedDRO algorithms: the fix of the counterexample, exact tracking, reproducibility, Runs JSON."""

import numpy as np
import pytest

from fedbounds.problems import feddro as P
from fedbounds.verify import catalog
from fedbounds.verify.algorithms import feddro as A


@pytest.mark.parametrize("alg", ["feddro", "modified-fedavg"])
@pytest.mark.parametrize("eta", [0.04, 1 / 22])
def test_fix_converges_to_x_star_and_tracks_exactly(alg: str, eta: float) -> None:
    prob = P.make_counterexample({})
    r = A.simulate(prob, alg, 2000, eta=eta, beta=0.3, I=2)
    assert abs(r.xbar_curve[-1, 0]) < 1e-12  # x* = 0 (digest §8.4)
    assert r.max_track == 0.0  # ȳ^t ≡ (1/K)Σ g_k(x_k^t) exactly (digest §4.3)


def test_vanilla_does_not_converge_in_simulator() -> None:
    prob = P.make_counterexample({})
    for case in ("I", "II"):
        r = A.simulate(prob, "fedavg-co", 2000, eta=0.04, I=2, case=case)
        assert r.xbar_curve[::2, 0].min() >= 0.5 and r.final_grad[0] > 1 / 17


def test_tracking_error_contracts_by_one_minus_beta() -> None:
    # deterministic: ȳ^t − (1/K)Σg_k(x_k^t) = (1 − β)^t (ȳ⁰ − g(x̄⁰)) (digest §4.3)
    prob = P.make_p2({"K": 4, "s": 0.0, "s_h": 0.0})
    r = A.simulate(prob, "feddro", 30, eta=0.05, beta=0.25, I=3, ybar0_offset=0.1)
    t = np.arange(31)
    assert np.allclose(r.track_curve, 0.01 * 0.75 ** (2 * t), rtol=1e-9, atol=1e-30)


def test_reproducible_and_modified_is_beta_one() -> None:
    prob = P.make_p1({"K": 4, "s": 1.0})
    a = A.simulate(prob, "feddro", 200, 5, seed=3, I=2)
    b = A.simulate(prob, "feddro", 200, 5, seed=3, I=2)
    c = A.simulate(prob, "feddro", 200, 5, seed=4, I=2)
    assert np.array_equal(a.G, b.G) and not np.array_equal(a.G, c.G)
    m = A.simulate(prob, "modified-fedavg", 200, 5, seed=3, I=2, eta=0.05)
    f1 = A.simulate(prob, "feddro", 200, 5, seed=3, I=2, eta=0.05, beta=1.0)
    assert np.array_equal(m.G, f1.G)


def test_stochastic_feddro_reduces_gradient() -> None:
    prob = P.make_p1({"K": 8, "s": 1.0})
    r = A.simulate(prob, "feddro", 2000, 8, seed=0, I=2, record_every=50)
    assert r.grad_curve[-1] < 0.1 * r.grad_curve[0]
    ind = A.simulate(prob, "feddro", 500, 4, seed=0, batch_independent=True)
    assert np.all(np.isfinite(ind.G))


def test_runs_json_and_catalog() -> None:
    algs = catalog.algorithms()
    for name in ("feddro", "feddro-modified-fedavg", "feddro-fedavg-co-case1",
                 "feddro-fedavg-co-case2"):
        assert name in algs
    probs = catalog.problems()
    prob = probs["feddro-p2"].make({"K": 4.0}, 0)
    out = algs["feddro"].run(prob, {"I": 2.0}, 300, 3, 0)
    assert set(out) == {"constants", "config", "metrics", "summary"}
    assert len(out["metrics"]["grad_phi_sq"]) == len(out["metrics"]["iteration"])
    s = out["summary"]
    assert s["communications"] == 150 and s["communications_all_rounds"] == 300
    assert s["samples_per_client"] == 4 * 300
    lit = algs["feddro-fedavg-co-case1"].run(probs["feddro-counterexample"].make({}, 0),
                                             {"I": 2.0, "eta": 0.01, "literal": 1.0}, 6, 1, 0)
    assert lit["config"]["variant"] == "literal"
    with pytest.raises(ValueError):
        algs["feddro"].run(prob, {"I": 0.5}, 10, 1, 0)
    dro = probs["feddro-kl-dro"].make({"K": 4.0, "m": 20.0}, 0)
    out = algs["feddro"].run(dro, {"eta": 0.2, "beta": 0.5, "I": 2.0, "b": 4.0}, 200, 2, 0)
    assert out["summary"]["final_grad_phi_sq"] < out["metrics"]["grad_phi_sq"][0]
