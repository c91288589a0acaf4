"""FedDRO problems: closed forms and exact constants (Section 2.1, Appendix D; P1/P2 are ours)."""

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.problems import feddro


def test_counterexample_constants() -> None:
    c = feddro.make_counterexample({}).constants
    # derived from eq. (10): B_f = 1, L_f = 1/2, B_g = 4, Δ_g = 3; Φ(0.5) − Φ* = √17/2 − 2
    assert (c["B_f"], c["L_f"], c["B_g"], c["Delta_g"]) == (1.0, 0.5, 4.0, 3.0)
    assert c["Phi_gap0"] == pytest.approx(17**0.5 / 2 - 2, abs=1e-15)
    assert c["L_Phi_true"] == pytest.approx(0.5, abs=1e-6)  # vs the Lemma 3.1 bound 8


def test_p1_p2_closed_forms() -> None:
    p1 = feddro.make_p1({"K": 4, "A": 0.5, "C": 0.5, "s": 1.0})
    x = np.linspace(-3, 3, 7)[:, None]
    assert np.allclose(p1.Phi(x), np.sqrt(x[:, 0] ** 2 + 4))
    assert p1.constants["B_g"] == pytest.approx((1.5**2 + 1) ** 0.5)  # B_g² = (1+A)² + s²
    p2 = feddro.make_p2({"K": 2, "A": 0.5, "C": 0.5})
    assert p2.x_star[0] == pytest.approx(-0.4766932835517673, abs=1e-12)  # P2's root
    assert p2.constants["L_h"] == 3.0


def test_oracles_unbiased_and_chain_rule() -> None:
    prob = feddro.make_p2({"K": 4, "s": 1.0, "s_h": 1.0})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 4, 1))
    R = 200000
    X = np.broadcast_to(x, (R, 4, 1))
    z = prob.sample_g(rng, R, 1)
    assert np.allclose(prob.g_val(X, z).mean(0), prob.g_val(x, None)[0], atol=2e-2)
    assert np.allclose(prob.g_jac(X, z).mean(0), prob.g_jac(x, None)[0], atol=1e-2)
    xb = np.array([0.3])
    Xb = np.broadcast_to(xb, (1, 4, 1))
    chain = prob.grad_h(Xb, None).mean(1) + (prob.g_jac(Xb, None).mean(1)[..., 0]
                                             * prob.grad_f(prob.g_val(Xb, None).mean(1)))
    assert np.allclose(chain[0], prob.grad_Phi(xb), atol=1e-14)


@pytest.mark.parametrize("name", ["feddro-kl-dro", "feddro-chi2-dro"])
def test_dro_gradient_and_minimiser(name: str) -> None:
    entry = {p.name: p for p in feddro.PROBLEMS}[name]
    prob = entry.make({"K": 4.0, "m": 20.0, "d": 3.0}, 1)
    x = np.array([0.2, -0.1, 0.3])
    e = 1e-6
    num = np.array([(prob.Phi(x + e * v) - prob.Phi(x - e * v)) / (2 * e) for v in np.eye(3)])
    assert np.allclose(num, prob.grad_Phi(x), atol=1e-8)
    assert prob.constants["grad_norm_at_x_star"] < 1e-6
    X = np.broadcast_to(x, (1, 4, 3))
    chain = prob.grad_h(X, None).mean(1) + prob.g_jac(X, None).mean(1)[..., 0] * prob.grad_f(
        prob.g_val(X, None).mean(1))
    assert np.allclose(chain[0], prob.grad_Phi(x), atol=1e-12)


def test_chi2_and_kl_reference_values() -> None:
    # independent reference values: m = 6, λ = 5, ℓ = default_rng(1).uniform(0, 1, 6)
    ell = np.random.default_rng(1).uniform(0, 1, 6)
    v = feddro.chi2_values(ell, 5.0)
    assert v["true"] == pytest.approx(0.5576789, abs=1e-7)
    assert v["corrected"] == pytest.approx(v["true"], abs=1e-14)
    assert v["paper_eq5"] == pytest.approx(-0.0093035, abs=1e-7)  # printed eq. (5), L75
    k = feddro.kl_values(ell, 5.0)
    assert k["true"] == pytest.approx(0.5577279, abs=1e-7)
    assert k["paper_eq4"] == pytest.approx(0.1115456, abs=1e-7)  # eq. (4) without λ, L70


def test_bad_parameters() -> None:
    with pytest.raises(ValueError):
        feddro.make_p1({"K": 3})
    with pytest.raises(ValueError):
        feddro.make("feddro-kl-dro", {"lam": -1.0})
    with pytest.raises(BadInput) as err:
        feddro.make("feddro-p3", {})
    assert err.value.argument == "--problem" and "feddro-p1" in err.value.message


def test_counterexample_coefficients_from_the_encoded_theorem() -> None:
    # g_1 = 4x − 4, g_2 = −2x + 4 (Appendix D [L434]), read from fedbounds.theorems.feddro
    assert feddro.CE_SLOPES.tolist() == [4.0, -2.0] and feddro.CE_OFFSETS.tolist() == [-4.0, 4.0]
    prob = feddro.make("feddro-counterexample", {})
    assert prob.a.tolist() == [4.0, -2.0] and prob.c.tolist() == [-4.0, 4.0]


def test_public_dro_makers() -> None:
    # the χ² family defaults to λ = 2, the KL family to λ = 1; both with K = 4 clients
    assert feddro.CHI2_PARAMS["lam"].default == 2.0 and feddro.DRO_PARAMS["lam"].default == 1.0
    kl = feddro.make_dro("kl", feddro.DRO_PARAMS)({"K": 4.0, "m": 20.0, "d": 3.0}, 1)
    same = feddro.make("feddro-kl-dro", {"K": 4.0, "m": 20.0, "d": 3.0}, 1)
    assert kl.constants == same.constants and kl.K == 4 and kl.lam == 1.0
