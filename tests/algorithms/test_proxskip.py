"""ProxSkip-VIP algorithm units (Algorithm 2 [L212–L226], Algorithm 4 [L472–L490]):
reproducible runs, divergence with its round, Binomial communications, default parameters from
the encoded schedules (Cor. 3.6 [L182], Cor. 3.5 [L174], Cor. 3.9 [L204]), the run document,
p = 1 as proximal (S)GDA, and L-SVRGDA without a floor."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fedbounds.errors import BadInput
from fedbounds.problems import proxskip as families
from fedbounds.verify.algorithm import run_document, simulate
from fedbounds.verify.algorithms import proxskip as algorithms
from fedbounds.verify.executor import execute, generators
from fedbounds.verify.fitting import mean_ci

UNITS = [algorithms.PROXSKIP_GDA_FL, algorithms.PROXSKIP_SGDA_FL,
         algorithms.PROXSKIP_L_SVRGDA_FL, algorithms.LOCAL_GDA, algorithms.LOCAL_EG,
         algorithms.PROJECTED_GDA]


@pytest.fixture(scope="module")
def gnorm():
    return families.g_norm(n=3, d=4, s=3.0, zeta_sq=1.0, seed=0)


# ---- executor through the units ---------------------------------------------------------------


def test_same_seed_identical_and_different_seed_differs(gnorm):
    method = algorithms.PROXSKIP_GDA_FL.method(gnorm)
    a, b, c = (simulate(method, 50, replicas=8, seed=s) for s in (3, 3, 4))
    assert np.array_equal(a.metrics["V"], b.metrics["V"])
    assert np.array_equal(a.communications, b.communications)
    assert not np.array_equal(a.metrics["V"], c.metrics["V"])


def test_streams_are_spawned_from_one_seedsequence():
    g1 = generators(5, ["noise", "coin"])
    g2 = generators(5, ["coin", "noise"])
    assert g1["noise"].random() == g2["noise"].random()
    assert generators(5, ["coin"])["coin"].random() != generators(6, ["coin"])["coin"].random()


def test_blowup_reports_diverged_with_round(gnorm):
    tr = simulate(algorithms.proxskip_method(gnorm, 50 / gnorm.constants["ell"], 1.0), 500,
                  replicas=4)
    assert tr.diverged and tr.reason
    assert 0 < tr.diverged_at < 500
    assert tr.iterations[-1] == tr.diverged_at
    assert np.all(np.isfinite(tr.metrics["V"][:-1]))


def test_communications_are_binomial(gnorm):
    """One shared coin θ_t ~ Bernoulli(p) per iteration (Alg. 1 line 3 [L125]): mean pT."""
    method = algorithms.PROXSKIP_GDA_FL.method(gnorm)
    p, T = method.config["p"], 400
    tr = simulate(method, T, replicas=400, seed=1, record_every=T)
    est = mean_ci(tr.communications[-1], level=0.999)
    assert est.lo <= p * T <= est.hi


def test_execute_validates_arguments():
    with pytest.raises(ValueError):
        execute((np.zeros((1, 1, 1)),), lambda s, d, t: (s, np.zeros(1)), -1, replicas=1,
                seed=0, metrics={})


# ---- defaults from the encoded schedules ------------------------------------------------------


def test_gda_defaults_are_cor36(gnorm):
    """Cor. 3.6 [L182]: γ = 1/(2ℓ), p = √(γμ); G-norm n=3, s=3: ℓ = (μ² + s²)/μ = 10."""
    config = algorithms.PROXSKIP_GDA_FL.method(gnorm).config
    assert config["gamma"] == pytest.approx(1 / 20, rel=1e-12)  # ℓ is a generalized eigenvalue
    assert config["p"] == pytest.approx(math.sqrt(1 / 20), rel=1e-12)
    given = algorithms.PROXSKIP_GDA_FL.method(gnorm, {"gamma": 0.01}).config
    assert given["p"] == pytest.approx(0.1, rel=1e-14)  # p = √(γμ) at the given γ (Cor. 3.5 [L174])
    assert algorithms.LOCAL_GDA.method(gnorm).config["H"] == round(math.sqrt(20))


def test_sgda_and_svrg_defaults():
    """Cor. 3.5 [L174]: γ = min{1/(2L_g), 1/(2μ), με/(8σ_*²)}; Cor. 3.9 [L204]: γ = 1/(6ℓ̂),
    q = 2γμ, p = √(γμ)."""
    noisy = families.with_noise(families.g_norm(n=3, d=4, s=3.0, seed=0), 1.0)  # σ_*² = 3
    gamma = algorithms.PROXSKIP_SGDA_FL.method(noisy).config["gamma"]
    assert gamma == pytest.approx(1 / 20, rel=1e-12)  # L_g = ℓ = 10
    capped = algorithms.PROXSKIP_SGDA_FL.method(noisy, {"epsilon": 0.24}).config
    assert capped["gamma"] == pytest.approx(0.24 / 24, rel=1e-12)  # με/(8σ_*²) = 0.01
    fs = families.finite_sum(families.g_norm(n=3, d=4, s=2.0, seed=0), m=10, spread=1.0,
                             seed=0, jac_spread=1.0)
    c = fs.constants
    config = algorithms.PROXSKIP_L_SVRGDA_FL.method(fs).config
    assert config["gamma"] == pytest.approx(1 / (6 * c["ell_hat"]), rel=1e-15)
    assert config["q"] == pytest.approx(2 * config["gamma"] * c["mu"], rel=1e-15)
    assert config["p"] == pytest.approx(math.sqrt(config["gamma"] * c["mu"]), rel=1e-15)


def test_outside_the_theory_the_schedule_uses_the_mean_operator():
    """RLS (Appendix G.1 [L814–L818]) has μ_i = 0 [derived]: Table G [L786] takes μ of the mean
    operator for p."""
    rls = families.rls(r=8, s=2, n=2, seed=0)
    config = algorithms.PROXSKIP_GDA_FL.method(rls).config
    assert rls.constants["mu"] == 0
    assert config["p"] == pytest.approx(math.sqrt(config["gamma"] * rls.constants["mu_mean"]),
                                        rel=1e-14)


@pytest.mark.parametrize("values, argument", [({"p": 0.0}, "--set p"), ({"gamma": -1.0},
                                                                        "--set gamma")])
def test_bad_values_name_the_parameter(gnorm, values, argument):
    with pytest.raises(BadInput) as err:
        algorithms.PROXSKIP_GDA_FL.method(gnorm, values)
    assert err.value.argument == argument


# ---- the run document and the dynamics ----------------------------------------------------------


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_run_document_for_every_unit(unit):
    det = families.g_norm(n=3, d=4, seed=0)
    fs = families.finite_sum(det, m=5, spread=1.0, seed=0, jac_spread=0.5)
    prob = fs if unit.name in ("proxskip-l-svrgda-fl", "proxskip-sgda-fl") else det
    doc = run_document(unit, "proxskip-g-norm", prob, {}, 20, 3)
    assert set(doc) >= {"algorithm", "constants", "config", "metrics", "summary"}
    assert len(doc["metrics"]["dist_sq"]) == 21
    assert doc["summary"]["communications"] >= 0
    assert np.isfinite(doc["summary"]["final_dist_sq"])
    assert doc["summary"]["final_dist_sq"] < doc["metrics"]["dist_sq"][0]
    json.dumps(doc)


def test_p1_is_proximal_gda_for_any_h0(gnorm):
    """Section 3 [L119] (erratum p1-any-h, [derived]): with p = 1 the x-trajectories of
    ProxSkip-SGDA-FL and of x ← Π(x − γg) coincide under shared noise, whatever h_0."""
    noisy = families.with_noise(gnorm, 0.5)
    h0 = np.random.default_rng(0).standard_normal((4, 3, 4))
    pair, start = algorithms.skipless_pair(noisy, 0.05, 1.0, "sgda", h0)
    tr = simulate(pair, 200, replicas=4, seed=0, state=start)
    assert tr.metrics["diff"].max() <= 1e-12
    pair, start = algorithms.skipless_pair(noisy, 0.05, 0.5, "sgda", h0)
    assert simulate(pair, 200, replicas=4, seed=0, state=start).metrics["diff"].max() > 1e-3


def test_svrg_reaches_machine_precision_without_floor():
    """Thm 4.4 [L256]: L-SVRGDA-FL converges to the exact solution; SGDA-FL has a floor."""
    prob = families.finite_sum(families.g_norm(n=3, d=4, s=2.0, seed=0), m=10, spread=1.0,
                               seed=0, jac_spread=1.0)
    tr = simulate(algorithms.PROXSKIP_L_SVRGDA_FL.method(prob), 3000, replicas=8)
    sg = simulate(algorithms.PROXSKIP_SGDA_FL.method(prob), 3000, replicas=8)
    assert tr.mean("dist_sq")[-1] < 1e-20 * tr.mean("dist_sq")[0]
    assert sg.mean("dist_sq")[-1] > 1e-6 * sg.mean("dist_sq")[0]


@pytest.mark.slow
def test_benchmark_identical_iterates():
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_proxskip.py"
    out = subprocess.run([sys.executable, str(script), "--iterations", "50", "--replicas", "4"],
                         capture_output=True, text=True, check=True)
    assert "speed ratio" in out.stdout
