"""Bound-validity sweeps (verify/sweeps.py, verify/claims/sweeps.py): the exact moment machinery
against Monte Carlo and against quantities computed independently, the closed-form Moreau
gradient against a numerical prox, max-step inside the boundary, the table and the decision,
and what each paper's sweep reports. Perturbations, unknown overrides and the reported runs are
covered by the generic contract test (tests/contract/test_claims.py)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from fedbounds import engine, registry
from fedbounds.problems.minmax import make_game
from fedbounds.verify import sweeps
from fedbounds.verify.algorithm import simulate
from fedbounds.verify.algorithms.fednorm import FEDNORM_SGDA
from fedbounds.verify.algorithms.sagda import FSGDA, SAGDA_I, SAGDA_II
from fedbounds.verify.claims import sweeps as claims
from fedbounds.verify.fitting import mean_ci

SWEEPS = {"sagda.p17": "sagda", "proxskip.p27": "proxskip", "fedsgda.p16": "fedsgda",
          "fednorm.p21": "fednorm", "feddro.p17": "feddro"}


@pytest.fixture(scope="module")
def game():
    return make_game({"M": 4, "dx": 1, "dy": 1, "a_ratio": 1.0, "sigma_G": 1.0,
                      "sigma_x": 1.0, "sigma_y": 1.0}, 0)


@pytest.mark.parametrize("alg, cfg", [
    (FSGDA, {"eta_xl": 0.05, "eta_yl": 0.1, "eta_xg": 1.0, "eta_yg": 1.0, "K": 2, "m": 2}),
    (SAGDA_II, {"eta_xl": 0.05, "eta_yl": 0.1, "eta_xg": 1.0, "eta_yg": 1.0, "K": 2, "m": 2}),
    (SAGDA_I, {"eta_xl": 0.05, "eta_yl": 0.1, "eta_xg": 1.0, "eta_yg": 1.0, "K": 2, "m": 2}),
    (FEDNORM_SGDA, {"eta_cx": 0.05, "eta_cy": 0.1, "tau": 1, "tau_max": 3, "P": 2})])
def test_exact_average_matches_monte_carlo(game, alg, cfg):
    """The exact (1/T)Σ E‖∇Φ(x_t)‖² (every client set, Gaussian noise in closed form) lies in
    the 99.9% interval of 3000 independent runs of the algorithm itself."""
    T = 150
    m = cfg.get("m", cfg.get("P"))
    if alg is FEDNORM_SGDA:
        method = alg.method(game, cfg)
        model = sweeps.affine_model(method, game.M, m)
        value = sweeps.exact_average(model, sweeps.game_functional(model, game),
                                     sweeps.flatten(method.init(1, 0))[0],
                                     np.zeros((model.n, model.n)), T)[0]
    else:
        value = claims.sagda_exact(alg, game, {k: v for k, v in cfg.items() if k != "m"}, m,
                                   T)[0]
    tr = simulate(alg.method(game, cfg), T, replicas=3000, seed=7)
    est = mean_ci(tr.metrics["grad_phi_sq"][:-1].mean(axis=0), level=0.999)
    assert est.lo <= value <= est.hi, (alg.name, value, est)


def test_affine_model_first_moment_is_the_start_and_one_step(game):
    """At t = 0 the exact curve is ‖∇Φ(x_0)‖² (the game's closed form); the model's step from
    a random state with zero noise is the method's own step, for each client set."""
    cfg = {"eta_xl": 0.05, "eta_yl": 0.1, "eta_xg": 1.0, "eta_yg": 1.0, "K": 2, "m": 2}
    method = SAGDA_II.method(game, cfg)
    model = sweeps.affine_model(method, game.M, 2)
    assert model.A.shape[0] == math.comb(4, 2) and model.affine_error < 1e-12
    curve = sweeps.exact_curve(model, sweeps.game_functional(model, game),
                               game.z0.copy(), np.zeros((2, 2)), 3)
    assert curve[0] == pytest.approx(float(game.grad_phi_sq(game.z0[:1])), rel=1e-12)
    z = np.array([[0.3, -0.7]])
    u = np.ones((1, 4))
    u[0, [1, 3]] = 0.0  # client set {1, 3}
    draws = {"clients": u, "noise": np.zeros((1, 2, 2, 2)), "cv_noise": np.zeros((1, 2, 2))}
    new, _ = method.step(method.init(1, 0)._replace(z=z), draws, 0)
    s = list(combinations(range(4), 2)).index((1, 3))
    assert np.allclose(model.A[s] @ z[0] + model.c[s], new.z[0], atol=1e-14)


def test_moreau_gradient_closed_form_matches_a_numerical_prox():
    """‖∇Φ_{1/2L_f}(x)‖² in closed form equals 4L_f²(x − û)² with û from a bounded scalar
    minimisation of Φ(u) + L_f(u − x)² (Φ from the game's own closed form)."""
    g, _pset = claims.ncc_game(3, 0.5, 0.5, 0)
    L = g.constants["L_f"]
    for x in (-3.0, -0.4, 0.0, 0.9, 1.7, 4.2):
        res = minimize_scalar(lambda u, x=x: float(g.phi(np.array([u]))) + L * (u - x) ** 2,
                              bounds=(x - 20, x + 20), method="bounded",
                              options={"xatol": 1e-12})
        expected = (2 * L * (x - res.x)) ** 2
        assert float(sweeps.moreau_grad_sq(g, np.array([x]))[0]) == pytest.approx(
            expected, rel=1e-5, abs=1e-9)
    grid_min = float(np.min(g.phi(np.linspace(-30, 30, 600001)[:, None])))
    assert 0 <= grid_min - sweeps.scalar_ncc_phi_min(g) <= 1e-3  # the minimum, to the grid's step


def test_max_step_is_just_inside_the_boundary():
    """The step max-step returns satisfies every condition (engine.check), and 10⁻⁴ above the
    engine's boundary one fails; the step lies 10⁻⁶ inside."""
    values = {"ell": 7.3, "mu": 0.3}
    gamma, binding = sweeps.max_step("proxskip.cor3.6", "gamma", values)
    thm = registry.get("proxskip.cor3.6")
    point = {k: Fraction(v) for k, v in values.items()}
    assert engine.check(thm, {**point, "gamma": Fraction(gamma)})[0]
    assert not engine.check(thm, {**point, "gamma": Fraction(1 / (2 * 7.3) * (1 + 1e-4))})[0]
    assert gamma == pytest.approx(1 / (2 * 7.3) * (1 - sweeps.SAFETY), rel=1e-12)
    assert "1/(2ell)" in binding


def test_a_step_the_conditions_leave_free_is_reported_unbounded():
    """Fed-Norm Theorem 1 at full participation without multiplicative noise does not bound
    γ^s_y (every condition with it has the factor (n − P) or β_L²)."""
    g = make_game({"M": 6, "p_skew": 0.0}, 0)
    from fedbounds.verify.exact.fednorm import thm1_inputs

    inputs = thm1_inputs(g, np.full(6, 2), 6)
    free = {**inputs, "gamma_sx": 1e-12, "eta_cx": 1e-12, "eta_cy": 1e-12}
    assert sweeps.is_unbounded("fednorm.thm1", "gamma_sy", free)
    partial = thm1_inputs(g, np.full(6, 2), 3)
    assert not sweeps.is_unbounded("fednorm.thm1", "gamma_sy", {**free, **partial,
                                                                "gamma_sx": 1e-12})


def _point(theorem, ratio, hold=True, decides=True, lo=None, hi=None, k=0):
    return sweeps.SweepPoint(theorem, {"k": k}, {"gamma": 0.1}, ratio * 2.0, 2.0, hold,
                             None if lo is None else lo * 2.0, None if hi is None else hi * 2.0,
                             decides=decides)


def test_table_and_decision():
    """The table's worst ratio is the largest over the points whose conditions hold, with the
    constants where it occurs; the statistic is decided on the deciding theorems only, its
    interval the worst lower and upper ends; no deciding point: inconclusive."""
    points = [_point("a", 0.2, k=1), _point("a", 0.5, lo=0.4, hi=0.6, k=2),
              _point("a", 9.0, hold=False, k=3), _point("b", 3.0, decides=False, k=4),
              _point("c", 0.1, lo=0.05, hi=0.7, k=5)]
    table = {r["theorem"]: r for r in sweeps.sweep_table(points)}
    assert table["a"]["worst_ratio"] == pytest.approx(0.5) and table["a"]["constants"] == {"k": 2}
    assert table["a"]["points"] == 3 and table["a"]["conditions_hold_at"] == 2
    assert table["b"]["decides"] is False
    m = sweeps.sweep_measurement(points, run=None, bound_scale=1.0)
    assert m.statistic == pytest.approx(0.5) and m.interval == pytest.approx((0.4, 0.7))
    assert set(m.series) == {"a", "b", "c"} and m.hlines == {"ratio 1": 1.0}
    none = sweeps.sweep_measurement([_point("a", 0.3, hold=False)], run=None, bound_scale=1.0)
    assert none.statistic is None and none.inconclusive


@pytest.mark.parametrize("cid", sorted(SWEEPS))
def test_sweep_reports_a_table_per_theorem(cid, quick_verdict):
    """Each paper's sweep has a row per theorem it runs (every declared theorem), with a worst
    ratio and where it occurs; the statistic is the largest ratio over the printed statements
    whose conditions hold, recomputed here from the reported points."""
    from fedbounds.verify import catalog

    spec = catalog.claims()[cid]
    v = quick_verdict(cid)
    table = v.evidence["sweep_table"]
    assert {r["theorem"] for r in table} == set(spec.theorems)
    shown_only = {r["theorem"] for r in table if r["theorem"].endswith(".corrected")}
    if cid == "fednorm.p21":  # NC-C rows are shown; fednorm.p16 decides Theorem 2
        shown_only |= {r["theorem"] for r in table if r["method"].startswith("Monte")}
    assert all((r["theorem"] in shown_only) != r["decides"] for r in table)
    worst = max(p["ratio"] for p in v.evidence["points"]
                if p["decides"] and p["conditions_hold"])
    if cid == "fednorm.p21":  # decided on the implied constant's slope in T instead
        assert v.evidence["worst_ratio"] == pytest.approx(worst)
    else:
        assert v.statistic == pytest.approx(worst)
    for r in table:
        if r["worst_ratio"] is not None:
            assert r["constants"] and r["steps"] is not None
    assert v.figure is not None and set(v.figure.series) == {r["theorem"] for r in table}


def test_sagda_sweep_finds_the_option_ii_sampling_erratum(quick_verdict):
    """Theorem 1 Option II as printed fails under partial participation with heterogeneity
    (erratum thm1-opt2-sampling): the worst point is m < M with σ_G = 100; Theorem 2 and
    Option I hold at every point."""
    v = quick_verdict("sagda.p17")
    table = {r["theorem"]: r for r in v.evidence["sweep_table"]}
    worst = table["sagda.thm1.opt2"]
    assert v.verdict == "refuted" and worst["worst_ratio"] > 1
    assert worst["constants"]["m"] < worst["constants"]["M"]
    assert worst["constants"]["sigma_G"] == 100.0
    assert table["sagda.thm2"]["worst_ratio"] < 1 and table["sagda.thm1.opt1"]["worst_ratio"] < 1


def test_proxskip_sweep_is_tight_and_covers_p_extremes(quick_verdict):
    """ProxSkip's bounds hold (exact E[V_t]) and are nearly attained (worst ratio above 0.9);
    p = 1 and p = 0.1√(γμ) are both on the grid."""
    v = quick_verdict("proxskip.p27")
    assert v.verdict == "confirmed" and 0.9 < v.statistic <= 1
    ps = {p["constants"].get("p_factor") for p in v.evidence["points"]}
    assert {0.1, 1.0, math.inf} <= ps


def test_fednorm_sweep_decides_on_the_implied_constant_in_T(quick_verdict):
    """Fed-Norm's bounds are O(·) (Theorem 1 [L163–L167]): the sweep decides whether the
    implied constant grows in T, per NC-SC grid point, from exact averages out to T = 2^40;
    the statistic is the slope whose interval reaches highest, recomputed here by least
    squares from the reported (T, observed, bound); NC-C points are Monte Carlo and shown."""
    from fedbounds.verify import catalog

    assert catalog.claims()["fednorm.p21"].provenance == "paper"
    v = quick_verdict("fednorm.p21")
    methods = {p["theorem"]: p["method"] for p in v.evidence["points"]}
    assert methods["fednorm.thm1"] == "exact" and methods["fednorm.thm2"].startswith("Monte")
    fits = v.evidence["implied_constant_in_T"]
    assert fits and all(f["theorem"] in methods for f in fits)
    worst = max(fits, key=lambda f: f["slopes"]["T"]["lo"])
    assert v.statistic == pytest.approx(worst["slopes"]["T"]["slope"])
    tail = v.evidence["params"]["tail"]
    longest = [max(v.evidence["points"][f["point"] - 1]["along_T"]["T"]) for f in fits]
    assert max(longest) == 2.0**40  # horizons end early only where the observed reaches 0
    for f in fits:
        along = v.evidence["points"][f["point"] - 1]["along_T"]
        x = np.log(along["T"][-tail:])
        c = np.log(np.array(along["observed"][-tail:]) / np.array(along["bound"][-tail:]))
        assert f["slopes"]["T"]["slope"] == pytest.approx(np.polyfit(x, c, 1)[0], abs=1e-9)


def test_exact_long_run_matches_the_step_by_step_moments():
    """The doubled moment operator gives the same averages and values as stepping 64 times."""
    g = make_game({"M": 3, "sigma_x": 1.0, "sigma_y": 1.0, "sigma_G": 1.0}, 0)
    method = FEDNORM_SGDA.method(g, {"tau": 2, "P": 2, "eta_cx": 0.05, "eta_cy": 0.05,
                                     "gamma_sx": 1.0, "gamma_sy": 1.0})
    model = sweeps.affine_model(method, 3, 2)
    ell, start = sweeps.game_functional(model, g), sweeps.flatten(method.init(1, 0))[0]
    cov0 = np.zeros((model.n, model.n))
    curve = sweeps.exact_curve(model, ell, start, cov0, 65)
    horizons, averages, values = sweeps.exact_long_run(model, ell, start, cov0, 6)
    assert horizons == [1, 2, 4, 8, 16, 32, 64]
    np.testing.assert_allclose(averages, [curve[:T].mean() for T in horizons], rtol=1e-10)
    np.testing.assert_allclose(values, [curve[T] for T in horizons], rtol=1e-10)


def test_paper_page_shows_the_sweep_table(quick_verdict, tmp_path):
    """The report's paper page (HTML and Markdown) has a table per sweep claim: each theorem
    with its worst ratio and where it occurs (rendered by the report's own page writer)."""
    from fedbounds.app import report
    from fedbounds.verify import catalog

    spec, v = catalog.claims()["feddro.p17"], quick_verdict("feddro.p17")
    rows = [{"claim": spec, "v": v, "figure": None, "evidence": "{}", "rerun": ""}]
    sweeps_ = report.sweep_tables(rows)
    assert [t["theorem"] for t in sweeps_[0]["rows"]] == [
        r["theorem"] for r in v.evidence["sweep_table"]]
    theory = {"meta": {}, "errata": {}, "complexity": [], "statements": []}
    (tmp_path / "r").mkdir()
    report.render_pages(tmp_path / "r", ["feddro"], {"feddro": theory}, {spec.id: v},
                        {spec.id: spec}, profile="quick", seed=0)
    worst = next(r for r in v.evidence["sweep_table"] if r["theorem"] == "feddro.thmF.1")
    for ext in ("html", "md"):
        text = (tmp_path / "r" / f"feddro.{ext}").read_text()
        assert "Bound validity" in text and "feddro.thmF.1" in text
        assert report._num(worst["worst_ratio"]) in text
        assert report._num(worst["constants"]["I_max"]) in text
