"""SAGDA (Yang et al., NeurIPS 2022): encodings checked against the paper's text.

Expected values are hand transcriptions of the printed formulas (line numbers Lnnn of the
paper's text in the comments) evaluated with exact fractions, plus literal
values worked out by hand at the first reference point of each theorem. Nothing is copied from
``fedbounds.theorems.sagda``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fedbounds import engine, findings, registry
from fedbounds.app.cli import app
from fedbounds.complexity import derive
from fedbounds.theorems.sagda import LEMMA_RHS

IDS = ["sagda.thm1.opt1", "sagda.thm1.opt2", "sagda.cor1", "sagda.thm2", "sagda.cor2",
       "sagda.cor3"]
ALL = IDS + [i + ".corrected" for i in IDS]


def thm(i: str):
    return registry.get(i)


def vals(**kw) -> dict[str, F]:
    return {k: F(v) for k, v in kw.items()}


def margins(i: str, p: dict) -> dict[str, float]:
    """Condition name → margin (≥ 0 means it holds) from the engine."""
    t = thm(i)
    _, res = engine.check(t, {k: v for k, v in p.items() if k in t.condition_inputs()})
    return {r.name: r.margin for r in res}


# -- hand transcriptions of the printed statements --------------------------------------------
def ref_thm2(p: dict, corrected: bool = False) -> tuple[dict, dict]:
    """Theorem 2 (L215–L226): conditions as 'value ≥ 0' and the bound's terms."""
    Lf, mu, K, M, m = p["L_f"], p["mu"], p["K"], p["M"], p["m"]
    ex, ey = p["eta_xl"] * p["eta_xg"], p["eta_yl"] * p["eta_yg"]  # L174
    xl, yl = p["eta_xl"], p["eta_yl"]
    L = Lf + Lf**2 / mu  # L88
    a1 = F(1, 10) - 2 * (2 * L + Lf / 5) * ex * K  # L219
    a2 = F(1, 20) - F(2, 5) * Lf * ey * K - ex / ey * Lf**2 / mu**2
    a3 = F(31, 20) + (2 * L + Lf / 5) * ex * K
    a4 = F(1, 20) + Lf * ey * K / 5
    conds = {
        "drift": 1 - 8 * K * (K - 1) * (2 * K - 1) * Lf**2 * max(xl**2, yl**2),  # L215
        "x": a1 - a3 * 40 * Lf**2 * K**2 * xl**2 - ey / ex * a4 * 40 * Lf**2 * K**2 * xl**2,  # L216
        "y": a2 - a3 * ex / ey * 40 * Lf**2 * K**2 * yl**2 - a4 * 40 * Lf**2 * K**2 * yl**2,  # L217
    }
    terms = {}
    if "T" in p:
        sx, sy, sxg, syg = p["sigma_x"], p["sigma_y"], p["sigma_xG"], p["sigma_yG"]
        lf_over = Lf / 10 if corrected else Lf / 100  # L221 prints L_f/100
        f4 = 2 if corrected else 1
        terms = {
            "optimization": 2 * p["D_0"] / (ex * K * p["T"]),  # L221
            "statistical (x)": 2 * ex / m * (L + lf_over) * sx**2,  # L221
            "statistical (y)": Lf * ey**2 / (5 * m * ex) * sy**2,  # L221
            "local update psi_3": 2 * (a3 * Lf**2 + a4 * ey / ex * Lf**2) * (  # L225
                40 * K**2 * xl**2 * sxg**2 + 40 * K**2 * yl**2 * syg**2
                + 5 * K * xl**2 * sx**2 + 5 * K * yl**2 * sy**2),
            "sampling variance psi_4": f4 * ((2 * L + Lf / 5) * ex * K * (1 - F(m) / M) * F(2) / m
                                             * sxg**2  # L226
                                             + F(2, 5) / m * Lf * ey * K * ey / ex
                                             * (1 - F(m) / M) * syg**2),
        }
    return conds, terms


def ref_opt1(p: dict, corrected: bool = False) -> tuple[dict, dict]:
    """Theorem 1 Option I (L147–L158); corrected: a_2 with Lemma 5's 2M/m − 2 + m/M, kept in
    the bound (L789 replaced it by ½(L + L_f/10) + 2)."""
    Lf, mu, K, M, m = p["L_f"], p["mu"], p["K"], p["M"], p["m"]
    ex, ey = p["eta_xl"] * p["eta_xg"], p["eta_yl"] * p["eta_yg"]
    xl, yl = p["eta_xl"], p["eta_yl"]
    L = Lf + Lf**2 / mu
    r = F(M, m)
    a1 = K * Lf**2 * (F(31, 20) * ex + F(1, 20) * ey)  # L152
    a2 = (L + Lf / 10) / 2 + (r * (2 * r - 2 + 1 / r) if corrected else 1 + r**2 - r)  # L152
    A = a1 + a2 * 4 * Lf**2 * K**2 * (ex**2 + ey**2)
    conds = {
        "drift": 1 - 8 * K * (K - 1) * (2 * K - 1) * Lf**2 * max(xl**2, yl**2),  # L147
        "gamma": F(1, 2) - 4 * a2 * Lf**2 * K**2 * (ex**2 + ey**2)
        - A * 160 * K**2 * (xl**2 + yl**2) * Lf**2,  # L148
        "x": (F(1, 10) * ex * K - 4 * a2 * K**2 * ex**2) - A * 40 * K**2 * xl**2,  # L149
        "y": (ey * K * (F(1, 20) - ex / ey * Lf**2 / mu**2) - 4 * a2 * K**2 * ey**2)
        - A * 40 * K**2 * yl**2,  # L150
    }
    terms = {}
    if "T" in p:
        sx, sy = p["sigma_x"], p["sigma_y"]
        stat_coef = 2 * a2 if corrected else (L + Lf / 10) + 4  # L154
        psi_coef = a2 if corrected else (L + Lf / 10) / 2 + 2  # L158
        terms = {
            "optimization": 2 * p["D_0"] / (ex * K * p["T"]),  # L154
            "statistical": stat_coef * 9 / (m * ex) * (ex**2 * sx**2 + ey**2 * sy**2),
            "local update psi_1": (Lf**2 * (F(31, 20) + F(1, 20) * ey / ex)
                                   + psi_coef * 4 * Lf**2 * K * (ex + ey**2 / ex))
            * 20 * K**2 * (xl**2 * sx**2 + yl**2 * sy**2),  # L158
        }
    return conds, terms


def ref_opt2(p: dict) -> tuple[dict, dict]:
    """Theorem 1 Option II (L162–L172)."""
    Lf, mu, K, m = p["L_f"], p["mu"], p["K"], p["m"]
    ex, ey = p["eta_xl"] * p["eta_xg"], p["eta_yl"] * p["eta_yg"]
    xl, yl = p["eta_xl"], p["eta_yl"]
    L = Lf + Lf**2 / mu
    b1 = Lf**2 * (F(31, 20) * ex * K + F(1, 20) * ey * K + 2 * (L + Lf / 10) * ex**2 * K**2
                  + F(1, 5) * Lf * ey**2 * K**2)  # L166
    conds = {
        "drift": 1 - 8 * K * (K - 1) * (2 * K - 1) * Lf**2 * max(xl**2, yl**2),  # L162
        "x": F(1, 10) * ex * K - (2 * (L + Lf / 10) * ex**2 * K**2 + 40 * K**2 * xl**2 * b1),  # L163
        "y": ey * K * (F(1, 20) - ex / ey * Lf**2 / mu**2)
        - (F(1, 5) * Lf * ey**2 * K**2 + 40 * K**2 * yl**2 * b1),  # L164
    }
    terms = {}
    if "T" in p:
        sx, sy = p["sigma_x"], p["sigma_y"]
        terms = {
            "optimization": 2 * p["D_0"] / (ex * K * p["T"]),  # L168
            "statistical (x)": (L + Lf / 10) * 9 * ex / m * sx**2,  # L168
            "statistical (y)": F(9, 10) * Lf * ey**2 / (m * ex) * sy**2,  # L168
            "local update psi_2": Lf**2 * (F(31, 20) * K + F(1, 20) * ey / ex * K
                                           + 2 * (L + Lf / 10) * ex * K**2
                                           + F(1, 5) * Lf * ey**2 / ex * K**2)
            * 10 * (16 * K + 1) * (xl**2 * sx**2 + yl**2 * sy**2),  # L172
        }
    return conds, terms


# reference points: P1/P2 for Theorem 2, P3/P4 for Theorem 1 (values chosen by hand)
NOISE = dict(sigma_x=1, sigma_y=1, sigma_xG=1, sigma_yG=1, D_0=1, T=1000)
P1 = vals(L_f=1, mu=F(1, 2), K=2, M=10, m=5, eta_xl=F(1, 1000), eta_xg=F(1, 20),
          eta_yl=F(1, 1000), eta_yg=5, **NOISE)
P2 = vals(L_f=2, mu=1, K=1, M=4, m=4, eta_xl=F(1, 100), eta_xg=F(1, 100), eta_yl=F(1, 100),
          eta_yg=1, sigma_x=1, sigma_y=1, sigma_xG=3, sigma_yG=3, D_0=2, T=100)
P3 = vals(L_f=1, mu=1, K=1, M=2, m=1, eta_xl=F(1, 1000), eta_xg=F(1, 100), eta_yl=F(1, 1000),
          eta_yg=F(3, 10), sigma_x=1, sigma_y=1, D_0=1, T=100)
P4 = vals(L_f=F(1, 2), mu=F(1, 4), K=3, M=6, m=3, eta_xl=F(1, 500), eta_xg=F(1, 50),
          eta_yl=F(1, 400), eta_yg=2, sigma_x=2, sigma_y=F(1, 2), sigma_xG=1, sigma_yG=2, D_0=3, T=50)

COND_KEYS = {  # engine condition name → key of the hand transcription
    "(7) 8K(K-1)(2K-1)L_f^2 max(eta_xl^2, eta_yl^2) <= 1": "drift",
    "(10) 8K(K-1)(2K-1)L_f^2 max(eta_xl^2, eta_yl^2) <= 1": "drift",
    "(14) 8K(K-1)(2K-1)L_f^2 max(eta_xl^2, eta_yl^2) <= 1": "drift",
    "(8) x-descent >= 0": "x", "(9) y-descent >= 0": "y", "(11) Gamma-coefficient >= 0": "gamma",
    "(12) x-descent >= 0": "x", "(13) y-descent >= 0": "y", "(15) x-descent >= 0": "x",
    "(16) y-descent >= 0": "y",
}


def _compare(i: str, p: dict, ref) -> None:
    conds, terms = ref(p)
    got = margins(i, p)
    seen = set()
    for name, mg in got.items():
        if name in COND_KEYS:
            seen.add(COND_KEYS[name])
            assert mg == pytest.approx(float(conds[COND_KEYS[name]]), rel=1e-9, abs=1e-15), name
    assert seen == set(conds)
    b = engine.bound(thm(i), {k: v for k, v in p.items() if k in thm(i).inputs()})
    assert set(b.terms) == set(terms)
    for name, v in terms.items():
        assert b.terms[name] == pytest.approx(float(v), rel=1e-9), name


@pytest.mark.parametrize("p", [P1, P2], ids=["P1", "P2"])
@pytest.mark.parametrize("corrected", [False, True])
def test_thm2_conditions_and_terms(p, corrected) -> None:
    _compare("sagda.thm2" + (".corrected" if corrected else ""), p,
             lambda q: ref_thm2(q, corrected))


@pytest.mark.parametrize("p", [P3, P4], ids=["P3", "P4"])
@pytest.mark.parametrize("corrected", [False, True])
def test_thm1_opt1_conditions_and_terms(p, corrected) -> None:
    _compare("sagda.thm1.opt1" + (".corrected" if corrected else ""), p,
             lambda q: ref_opt1(q, corrected))


@pytest.mark.parametrize("p", [P3, P4], ids=["P3", "P4"])
def test_thm1_opt2_conditions_and_terms(p) -> None:
    _compare("sagda.thm1.opt2", p, ref_opt2)


def test_thm2_literal_values_at_P1() -> None:
    """Worked by hand: η_x = 5e-5, η_y = 5e-3, L = 3 (L88, L174), a_1 = 0.09876,
    a_2 = 0.006, a_3 = 1.55062, a_4 = 0.052 (L219)."""
    got = margins("sagda.thm2", P1)
    assert got["(8) x-descent >= 0"] == pytest.approx(0.0976799008, rel=1e-9)  # L216
    assert got["(9) y-descent >= 0"] == pytest.approx(0.005989199008, rel=1e-9)  # L217
    b = engine.bound(thm("sagda.thm2"), P1)
    assert b.terms["optimization"] == pytest.approx(20.0)  # 2/(5e-5·2·1000), L221
    assert b.terms["statistical (x)"] == pytest.approx(6.02e-5)  # 2e-5·3.01, L221
    assert b.terms["statistical (y)"] == pytest.approx(0.02)  # 25e-6/1.25e-3, L221
    assert b.terms["local update psi_3"] == pytest.approx(0.0045904216)  # 2·6.75062·3.4e-4, L225
    assert b.terms["sampling variance psi_4"] == pytest.approx(0.040124)  # 1.24e-4 + 0.04, L226


def test_thm2_P2_violates_x_descent() -> None:
    """P2 by hand: a_1 = 0.09752, a_3 = 1.55124, a_4 = 0.054, 40L_f²K²η_l² = 0.016 (L216):
    0.09752 − 0.02481984 − 0.0864 = −0.01369984 < 0; (9) holds with 0.000887802 (L217)."""
    got = margins("sagda.thm2", P2)
    assert got["(8) x-descent >= 0"] == pytest.approx(-0.01369984, rel=1e-9)
    assert got["(9) y-descent >= 0"] == pytest.approx(0.000887802, rel=1e-6)
    assert not engine.check(thm("sagda.thm2"), {k: v for k, v in P2.items()
                                                 if k in thm("sagda.thm2").condition_inputs()})[0]


def test_thm1_opt1_literal_values_at_P3() -> None:
    """Worked by hand at M/m = 2: a_1 = 3.05e-5, a_2 = 4.05 (L152), A = 3.195962e-5."""
    got = margins("sagda.thm1.opt1", P3)
    assert got["(11) Gamma-coefficient >= 0"] == pytest.approx(0.4999985301529216, rel=1e-12)
    assert got["(12) x-descent >= 0"] == pytest.approx(9.971016152e-7, rel=1e-9)  # L149
    assert got["(13) y-descent >= 0"] == pytest.approx(3.5407216152e-6, rel=1e-9)  # L150
    b = engine.bound(thm("sagda.thm1.opt1"), P3)
    assert b.terms["optimization"] == pytest.approx(2000.0)  # L154
    assert b.terms["statistical"] == pytest.approx(0.494649)  # 6.1·9·9.01e-3, L154
    assert b.terms["local update psi_1"] == pytest.approx(1.2639688e-4)  # 3.159922·4e-5, L158


# -- corrected variants: where and by how much they differ -------------------------------------
def test_thm2_corrected_differs_in_two_terms_only() -> None:
    bp = engine.bound(thm("sagda.thm2"), P1).terms
    bc = engine.bound(thm("sagda.thm2.corrected"), P1).terms
    # L_f/100 → L_f/10: + 2η_x/m · (9/100)L_f σ_x² = 2e-5·0.09 = 1.8e-6 (L221 vs L630/L636)
    assert bc["statistical (x)"] - bp["statistical (x)"] == pytest.approx(1.8e-6, rel=1e-9)
    # ψ4 doubles (L226 vs L637): 0.040124 → 0.080248
    assert bc["sampling variance psi_4"] == pytest.approx(2 * 0.040124)
    for name in ("optimization", "statistical (y)", "local update psi_3"):
        assert bc[name] == bp[name]
    assert margins("sagda.thm2", P1) == margins("sagda.thm2.corrected", P1)


def test_thm1_opt1_corrected_depends_on_participation_ratio() -> None:
    """At M/m = 1 the conditions agree and the corrected bound's statistical factor is
    2a_2 = 4.1 < 6.1 (printed); at M/m = 2: a_2 = 4.05 → 6.05 in the conditions and 6.1 → 12.1
    in the statistical term (L152, L154, L789)."""
    full = dict(P3, M=F(1))
    assert margins("sagda.thm1.opt1", full) == margins("sagda.thm1.opt1.corrected", full)
    sp_, sc = (engine.bound(thm(i), full).terms["statistical"]
               for i in ("sagda.thm1.opt1", "sagda.thm1.opt1.corrected"))
    assert sc / sp_ == pytest.approx(4.1 / 6.1)
    sp_, sc = (engine.bound(thm(i), P3).terms["statistical"]
               for i in ("sagda.thm1.opt1", "sagda.thm1.opt1.corrected"))
    assert sc / sp_ == pytest.approx(12.1 / 6.1)
    psi_c = engine.bound(thm("sagda.thm1.opt1.corrected"), P3).terms["local update psi_1"]
    assert psi_c == pytest.approx(1.3072168e-4)  # [3.05 + 24.2·0.00901]·4e-5, L158 with a_2
    mp, mc = margins("sagda.thm1.opt1", P3), margins("sagda.thm1.opt1.corrected", P3)
    # (13) loses 4(6.05 − 4.05)K²η_y² + 2·4L_f²K²(η_x² + η_y²)·40K²η_yl² = 7.2e-7 + 2.8832e-11
    assert mp["(13) y-descent >= 0"] - mc["(13) y-descent >= 0"] == pytest.approx(
        7.2e-7 + 2.8832e-11, rel=1e-9)


def test_thm1_opt2_corrected_requires_full_participation() -> None:
    p = {k: v for k, v in P4.items() if k in thm("sagda.thm1.opt2.corrected").condition_inputs()}
    assert engine.check(thm("sagda.thm1.opt2"), {k: v for k, v in p.items() if k != "M"})[0]
    assert "M" not in thm("sagda.thm1.opt2").inputs()  # the printed Option II never sees M
    ok, res = engine.check(thm("sagda.thm1.opt2.corrected"), p)  # m = 3 < M = 6
    assert not ok and [r.name for r in res if not r.holds] == ["m >= M (full participation)"]
    assert engine.check(thm("sagda.thm1.opt2.corrected"), dict(p, M=F(3)))[0]
    bp = engine.bound(thm("sagda.thm1.opt2"), {k: v for k, v in P4.items() if k != "M"
                                                and k in thm("sagda.thm1.opt2").inputs()})
    q = {k: v for k, v in P4.items() if k in thm("sagda.thm1.opt2.corrected").inputs()}
    assert engine.bound(thm("sagda.thm1.opt2.corrected"), q).terms == bp.terms


def test_cor1_corrected_local_cap() -> None:
    """m = 4, K = 2, T = 64: printed cap min{1/(2·2^{3/2}), 2^{3/4}/(4^{1/4}·64^{1/4})} =
    0.1767767 (L180); corrected 1/(m^{1/4}K^{5/4}T^{1/4}) = 0.1051120 (cf. L236)."""
    p = dict(P3, m=F(4), M=F(4), K=F(2), T=F(64))
    for i, cap in (("sagda.cor1", 0.17677670), ("sagda.cor1.corrected", 0.10511205)):
        t = thm(i)
        _, res = engine.check(t, {k: v for k, v in p.items() if k in t.condition_inputs()})
        r = next(r for r in res if r.name == "eta_xl <= local cap")
        assert r.rhs == pytest.approx(cap, rel=1e-6), i


def test_every_statement_cites_lines_and_lists_errata() -> None:
    for i in ALL:
        t = thm(i)
        assert all("L" in c.source for c in t.conditions), i
        assert all("L" in term.source for term in t.bound), i
        assert t.errata and all(e.source and e.printed and e.corrected for e in t.errata), i
        if i.endswith(".corrected"):
            assert t.corrected_of == i.removesuffix(".corrected")
        assert "eta_x" not in t.inputs() and "L" not in t.inputs() and "kappa" not in t.inputs()


# -- max-step ---------------------------------------------------------------------------------
steps = st.fractions(min_value=F(1, 10**6), max_value=F(10), max_denominator=10**6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(L_f=st.sampled_from([F(1, 2), F(1), F(3)]), kappa=st.sampled_from([F(1), F(2), F(5)]),
       K=st.integers(1, 6), m=st.integers(1, 8), extra=st.integers(0, 8),
       eta_xg=steps, eta_yl=st.fractions(F(1, 10**6), F(1, 100), max_denominator=10**6),
       eta_yg=steps)
def test_max_step_thm2_eta_xl_is_largest_feasible(L_f, kappa, K, m, extra, eta_xg, eta_yl,
                                                  eta_yg) -> None:
    t = thm("sagda.thm2")
    v = vals(L_f=L_f, mu=L_f / kappa, K=K, m=m, M=m + extra, eta_xg=eta_xg, eta_yl=eta_yl,
             eta_yg=eta_yg)
    r = engine.max_step(t, "eta_xl", v)
    if r.value is None:
        return
    assert engine.check(t, dict(v, eta_xl=F(r.value)))[0]
    ok, res = engine.check(t, dict(v, eta_xl=F(r.value) * F(1000001, 1000000)))
    assert not ok and r.binding in [x.name for x in res if not x.holds]


def test_max_step_integer_K_and_m() -> None:
    t = thm("sagda.thm1.opt1")
    v = {k: x for k, x in P3.items() if k in t.condition_inputs()}
    r = engine.max_step(t, "K", {k: x for k, x in v.items() if k != "K"})
    assert r.value == int(r.value) and r.value >= 1
    assert engine.check(t, dict(v, K=F(int(r.value))))[0]
    assert not engine.check(t, dict(v, K=F(int(r.value) + 1)))[0]
    r = engine.max_step(t, "m", dict({k: x for k, x in v.items() if k != "m"}, M=F(7)))
    assert r.value == 7 and r.binding == "m <= M"  # a_2 shrinks as m grows; m ≤ M binds


def test_cli_json_on_every_id() -> None:
    runner = CliRunner()
    out = json.loads(runner.invoke(app, ["list", "--json"]).stdout)
    listed = {x["id"] for x in out["theorems"]}
    assert set(ALL) <= listed
    for i in ALL:
        t = thm(i)
        p = {k: v for k, v in {**P4, "c_x": F(1), "c_y": F(40)}.items() if k in t.inputs()}
        sets = [f"{k}={v}" for k, v in p.items()]
        res = runner.invoke(app, ["show", i, "--json"])
        assert res.exit_code == 0 and json.loads(res.stdout)["errata"], i
        res = runner.invoke(app, ["check", i, "--json", "--set", *sets])
        assert res.exit_code in (0, 1), (i, res.stdout)
        assert json.loads(res.stdout)["theorem"] == i
        res = runner.invoke(app, ["bound", i, "--json", "--set", *sets])
        assert res.exit_code == 0, (i, res.stdout)
        assert math.isfinite(json.loads(res.stdout)["value"])
        rest = [s for s in sets if not s.startswith("eta_xl=")]
        res = runner.invoke(app, ["max-step", i, "--vary", "eta_xl", "--json", "--set", *rest])
        doc = json.loads(res.stdout)  # exit 1 exactly when no eta_xl is feasible
        assert res.exit_code == (0 if doc["value"] is not None else 1), i
        assert doc["vary"] == "eta_xl", i
    res = runner.invoke(app, ["complexity", "sagda.thm2", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["theorem"] == "sagda.thm2"


# -- complexity: derived vs claimed ---------------------------------------------------------------
@pytest.fixture(scope="module")
def reports() -> dict:
    return {i: derive(thm(i)) for i in ("sagda.cor1", "sagda.cor2", "sagda.cor3")}


def _verdicts(rep) -> dict[tuple[str, str], str]:
    return {(r.name.split(" (")[0].split(",")[0], row.cost): row.verdict
            for r in rep.regimes for row in r.rows}


def test_cor1_printed_cap_breaks_the_rate(reports) -> None:
    """Erratum cor1-local-cap, from the derivation: at fixed K the printed local cap makes ψ1 decay
    like K⁴/√(mKT), so T_ε carries K⁸ relative to the claimed 1/(mKε⁴) (L180)."""
    rep = reports["sagda.cor1"]
    row = next(r for r in rep.regimes[0].rows if r.cost == "communications")
    assert row.verdict == "disagree"
    K, m, eps = (thm("sagda.cor1").notation.spec(n).symbol for n in ("K", "m", "epsilon"))
    assert sp.simplify(row.derived_order - K**7 / (m * eps**4)) == 0
    assert _verdicts(rep)[("K = T/m", "communications")] == "agree"


def test_cor2_agrees_and_k_over_m_gives_eps_minus_two(reports) -> None:
    v = _verdicts(reports["sagda.cor2"])
    assert v[("general", "communications")] == "agree"
    assert v[("general", "samples_per_client")] == "agree"
    assert v[("K = T/m", "communications")] == "agree"  # O(ε⁻²), L238


def test_cor3_table1_communication_claim_is_refuted_by_derivation(reports) -> None:
    """Corollary 3's own rate agrees; Table 1's O(ε⁻²) for FSGDA (Cor. 2, 3) does not come out
    for K = 1 nor for K = T/m (erratum table1-cor3-communication): the derived rounds are
    1/(mε⁴)."""
    rep = reports["sagda.cor3"]
    v = _verdicts(rep)
    assert v[("general", "communications")] == "agree"
    assert v[("Table 1 row 'FSGDA", "communications")] == "disagree"
    assert v[("Table 1 row", "communications")] == "disagree"
    m, eps = (thm("sagda.cor3").notation.spec(n).symbol for n in ("m", "epsilon"))
    for reg in rep.regimes:
        row = next(r for r in reg.rows if r.cost == "communications")
        assert sp.simplify(row.derived_order - 1 / (m * eps**4)) == 0


@pytest.mark.parametrize("i", ["sagda.cor2", "sagda.cor3"])
def test_schedule_vs_conditions(reports, i) -> None:
    """Drift (7) and x-descent (8) hold for all T beyond a threshold under the schedule; the
    y-descent (9) only for Θ-constants with c_y/c_x > 20κ² (partial on the grid)."""
    sched = {s.condition: s.verdict for s in reports[i].schedule if "[" not in s.condition}
    assert sched["(7) 8K(K-1)(2K-1)L_f^2 max(eta_xl^2, eta_yl^2) <= 1"] == "threshold"
    assert sched["(8) x-descent >= 0"] == "threshold"
    assert sched["(9) y-descent >= 0"] == "partial"
    assert sched["eta_xl <= local cap"] == "always"


# -- findings ----------------------------------------------------------------------------------
def test_two_time_scale_ratio_is_forced_everywhere() -> None:
    kappa = sp.Symbol("kappa", positive=True)
    for i in ALL:
        fs = findings.findings(thm(i))
        ratio = [f for f in fs if f.kind == "ratio"]
        assert len(ratio) == 1, i
        f = ratio[0]
        assert f.id.endswith("eta_y/eta_x") and f.detail.startswith(">"), (i, f.text)
        assert sp.simplify(f.value - 20 * kappa**2) == 0, (i, f.value)  # L150, L164, L217
        assert "for all step sizes" in f.text


def test_ratio_infimum_matches_symbolic_value() -> None:
    """Numeric infimum of η_y/η_x over the feasible set of Theorem 2 at κ = 2 (L_f = 1,
    μ = 1/2): just above 20κ² = 80, never below it."""
    ex, ey = sp.Symbol("eta_x", positive=True), sp.Symbol("eta_y", positive=True)
    v = findings.ratio_infimum(thm("sagda.thm2"), ey, ex,
                               dict(L_f=1.0, mu=0.5, K=2, M=10, m=5), points=21)
    assert v is not None and 80.0 <= v <= 80.0 * 1.01


def test_empty_when_partial_participation_for_corrected_option2() -> None:
    fs = [f for f in findings.findings(thm("sagda.thm1.opt2.corrected")) if f.kind == "empty"]
    m, M = (sp.Symbol(n, positive=True, integer=True) for n in ("m", "M"))
    assert any(f.value == sp.Lt(m, M) and f.as_json()["value"] == "m < M" for f in fs)


# -- citations point at the part of the statement they name -------------------------------------
TERM_CITES = {"optimization": "optimization error", "statistical": "statistical error",
              "local update psi_1": "ψ1", "local update psi_2": "ψ2", "local update psi_3": "ψ3",
              "sampling variance psi_4": "ψ4"}


@pytest.mark.parametrize("i", ALL)
def test_conditions_and_terms_cite_their_own_equation(i) -> None:
    """A condition named '(n) …' restates appendix eq. (n) and cites it (Theorem 2: eqs. (7)–(9),
    Appendix B.1; Option I: (10)–(13), Appendix B.2; Option II: (14)–(16), Appendix B.3); each
    bound term cites the error the theorem names it by (Theorem 1 [L154, L158, L168, L172],
    Theorem 2 [L221–L226])."""
    t = thm(i)
    numbered = [c for c in t.conditions if c.name.startswith("(")]
    assert numbered, i
    for c in numbered:
        assert f"eq. {c.name.split()[0]}" in c.source, (i, c.name, c.source)
    for term in t.bound:
        assert TERM_CITES[term.name.split(" (")[0]] in term.source, (i, term.name, term.source)


# -- regimes of the corollaries: T_ε meets the corollary's lower bound on T ----------------------
@pytest.mark.parametrize("i, rounds_needed, rounds_min", [
    # rate 1/√(mKT) = ε² ⇒ T_ε = 1/(mKε⁴); T = Ω(mK) (Corollary 1 [L180], Corollary 2 [L236])
    ("sagda.cor1", lambda m, K, e: 1 / (m * K * e**4), lambda m, K: m * K),
    ("sagda.cor1.corrected", lambda m, K, e: 1 / (m * K * e**4), lambda m, K: m * K),
    ("sagda.cor2", lambda m, K, e: 1 / (m * K * e**4), lambda m, K: m * K),
    ("sagda.cor2.corrected", lambda m, K, e: 1 / (m * K * e**4), lambda m, K: m * K),
    # rate 1/√(mT) = ε² ⇒ T_ε = 1/(mε⁴) (Corollary 3 [L244]); eq. (8) needs η_xK = O(1), i.e.
    # T ≳ m under the schedule η_x = √m/(√T K) (derived here)
    ("sagda.cor3", lambda m, K, e: 1 / (m * e**4), lambda m, K: m),
    ("sagda.cor3.corrected", lambda m, K, e: 1 / (m * e**4), lambda m, K: m),
])
def test_corollary_regime_is_t_eps_above_the_minimum_rounds(i, rounds_needed, rounds_min) -> None:
    t = thm(i)
    m, K, eps = (t.notation.spec(n).symbol for n in ("m", "K", "epsilon"))
    rel = t.regime[-1]
    grid = [(F(a), F(b), F(c)) for a in (1, 2, 4) for b in (1, 2, 8)
            for c in (F(1, 10), F(1, 4), F(2, 5), F(3, 5), F(9, 10))]
    for mv, Kv, ev in grid:
        expected = rounds_needed(mv, Kv, ev) >= rounds_min(mv, Kv)
        assert bool(rel.subs({m: mv, K: Kv, eps: ev})) == expected, (i, mv, Kv, ev)


# -- lemma right-hand sides (used by claim sagda.p4) ---------------------------------------------
def test_lemma_right_hand_sides_at_a_hand_point() -> None:
    """Worked by hand. Lemma 4 (proof, Appendix B.1 [L603]) at K = 2, η_{x,l} = 1/10,
    η_{y,l} = 1/5, ‖∇_x f_i‖² = 3, ‖∇_y f_i‖² = 1/2, σ_x = 3, σ_y = 2:
    20·4·(1/100)·3 + 20·4·(1/25)·(1/2) + 5·2·(1/100)·9 + 5·2·(1/25)·4 = 2.4 + 1.6 + 0.9 + 1.6.
    Client sampling (proof of Theorem 2 [L640]) at ‖∇_x f‖² = 3, m = 2, M = 5, σ_{x,G} = 2:
    2·3 + 2(3/5)·4/2 = 8.4. Lemma 1 [L526–L536] at E‖ē_x‖² = 1/4, E‖u_x‖² = 1/2, σ_x = 3,
    m = 2, K = 3: 1 + 2 + 2·9/6 = 6."""
    point = {"K": F(2), "eta_xl": F(1, 10), "eta_yl": F(1, 5), "g_xi2": F(3), "g_yi2": F(1, 2),
             "sigma_x": F(3), "sigma_y": F(2)}
    expected = {"Lemma 4 drift": (point, F(65, 10)),
                "sampling": ({"g_x2": F(3), "m": F(2), "M": F(5), "sigma_xG": F(2)}, F(84, 10)),
                "Lemma 1": ({"e_bar2": F(1, 4), "u_x2": F(1, 2), "sigma_x": F(3), "m": F(2),
                             "K": F(3)}, F(6))}
    assert set(LEMMA_RHS) == set(expected)
    for name, (values, value) in expected.items():
        expr = LEMMA_RHS[name].expr
        subs = {s: sp.Rational(values[s.name].numerator, values[s.name].denominator)
                for s in expr.free_symbols}
        assert expr.subs(subs) == sp.Rational(value.numerator, value.denominator), name
