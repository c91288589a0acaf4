"""Fed-Norm-SGDA theorems (fedbounds/theorems/fednorm.py) against hand computations.

Reference values are computed by hand from the paper (Sharma, Panda, Joshi, "Federated Minimax
Optimization with Client Heterogeneity", TMLR, arXiv:2302.04249), never copied from the code under
test. Comments cite the paper's numbering (Theorem 1, Lemma B.3, eq. (4) …); a bare Lnnn is a line
of the text named in PAPER["text"] of fedbounds/theorems/fednorm.py.
"""

from __future__ import annotations

import json
from fractions import Fraction as Fr

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fedbounds import engine, registry
from fedbounds.app.cli import app
from fedbounds.complexity import accuracy_target, apply_schedule, derive

IDS = ["fednorm.thm1", "fednorm.thm1.corrected", "fednorm.cor1.1", "fednorm.cor1.1.corrected",
       "fednorm.cor1.2", "fednorm.cor1.2.corrected", "fednorm.rem3", "fednorm.rem3.corrected",
       "fednorm.thm2", "fednorm.thm2.corrected", "fednorm.cor2.1", "fednorm.cor2.1.corrected",
       "fednorm.cor2.2"]

# Theorem 1 point A: κ = L_f/μ = 2, L_Φ = κL_f/2 + L_f = 2 (L628), max w = E_w/n = 1/2,
# max w‖a‖₂²/‖a‖₁² = B_w/(nτ_eff) = 1/4, (n−P)/(n−1) = 2/3
T1A = dict(n=4, P=2, L_f=1, mu=Fr(1, 2), E_w=2, B_w=3, tau_eff=3, beta_L=1, beta_G=1,
           w_a_max=Fr(1, 8), a_l1_max=4, D=9, gamma_sx=Fr(1, 1000), gamma_sy=Fr(1, 10),
           eta_cx=Fr(1, 1000), eta_cy=Fr(1, 100))
T1B = {**T1A, "gamma_sx": Fr(1, 10**6), "gamma_sy": Fr(1, 1000)}
BOUND1 = dict(T=100, Delta_Phi=5, A_w=2, sigma_L=1, sigma_G=2, C_w=3)


def vals(d: dict) -> dict[str, Fr]:
    return {k: Fr(v) for k, v in d.items()}


def by_source(thm_id: str, point: dict) -> list[tuple[float, float, bool]]:
    _, res = engine.check(registry.get(thm_id), vals(point))
    return [(r.lhs, r.rhs, r.holds) for r in res]


def test_all_ids_registered() -> None:
    table = registry.theorems()
    for i in IDS:
        assert i in table
        if i.endswith(".corrected"):
            assert table[i].corrected_of == i.removesuffix(".corrected")
            assert table[i].errata


# -- Theorem 1: every condition at two points (Lemmas B.3 L630, B.4 L634, B.5 L638–L640) ----------
THM1_A = [  # (lhs, rhs, holds), in the order P ≤ n, n ≥ 2, B.3 ×3, B.4, B.5 ×5
    (2, 4, True), (4, 2, True),
    (0.192, 1, True),            # 64·3·1e-3·2·1·1·(4/2)·(1/4)                      (L630)
    (0.256, 1, True),            # 8·3·1e-3·2·(1/2)·2·(2/3)·max{8,1}                (L630)
    (0.012, 1, True),            # 8·3·1e-3·2·1·2·(1/8)                             (L630)
    (0.01, 1 / 16, True),        # max{1e-3, 1e-2} ≤ 1/(2·1·4·√(2·2))               (L634)
    (0.4, 1 / 64, False),        # 3·0.1·2·1·1·2·max{1/4, (2/3)(1/2)}               (L638)
    (0.001, 0.1 / 324, False),   # γ_x ≤ γ_y/(81κ²)                                 (L638)
    (1.6, 1, False),             # 8·3·1·0.1·2·max{1/3, 1/8}                        (L638)
    (0.01, 1 / (16 * 18**0.5), True),   # η_y L β_G ≤ 1/(16√(κD))                   (L640)
    (0.001, 1 / 384, True),      # η_x L β_G ≤ 1/(64κ√D)                            (L640)
]
THM1_B = [(2, 4, True), (4, 2, True), (1.92e-4, 1, True), (2.56e-4, 1, True), (1.2e-5, 1, True),
          (0.01, 1 / 16, True),
          (0.004, 1 / 64, True),     # 3·1e-3·2·2·(1/3)
          (1e-6, 1e-3 / 324, True),
          (0.016, 1, True),          # 8·3·1e-3·2·(1/3)
          (0.01, 1 / (16 * 18**0.5), True), (0.001, 1 / 384, True)]

THM1_G = [  # point A with β_G = 2: the β_G² factors of Lemmas B.3 and B.5 (x4), β_G of B.5 (x2)
    (2, 4, True), (4, 2, True),
    (0.768, 1, True),            # 64·3·1e-3·2·1·4·(4/2)·(1/4)                      (Lemma B.3)
    (1.024, 1, False),           # 8·3·1e-3·2·(1/2)·2·(2/3)·max{8·4, 1}             (Lemma B.3)
    (0.012, 1, True), (0.01, 1 / 16, True),
    (1.6, 1 / 64, False),        # 3·0.1·2·1·4·2·max{1/4, (2/3)(1/2)}               (Lemma B.5)
    (0.001, 0.1 / 324, False), (1.6, 1, False),
    (0.02, 1 / (16 * 18**0.5), False),  # η_y L β_G = 0.01·2                         (Lemma B.5)
    (0.002, 1 / 384, True),      # η_x L β_G = 0.001·2                              (Lemma B.5)
]


@pytest.mark.parametrize("point,expected", [(T1A, THM1_A), (T1B, THM1_B),
                                            ({**T1A, "beta_G": 2}, THM1_G)])
def test_thm1_conditions(point: dict, expected: list) -> None:
    got = by_source("fednorm.thm1", point)
    assert len(got) == len(expected)
    for (lhs, rhs, holds), (elhs, erhs, eholds) in zip(got, expected, strict=True):
        assert lhs == pytest.approx(elhs, rel=1e-9) and rhs == pytest.approx(erhs, rel=1e-9)
        assert holds is eholds


@pytest.mark.parametrize("point,terms", [
    # L656 at point A: κ²Δ/(τγ_yT) = 4·5/(3·0.1·100); κ²γ_yL/P(A σ_L² + Bβ_L²σ_G²) = 0.2·14;
    # κ²(n−P)/(n−1)γ_yL E_w τ σ_G²/P = 4·(2/3)·0.1·2·3·4/2; κ²(η_x²+η_y²)L²(Cσ_L²+Dσ_G²) = 4·1.01e-4·39
    (T1A, [20 / 30, 2.8, 3.2, 4 * 1.01e-4 * 39]),
    (T1B, [20 / 0.3, 0.028, 0.032, 4 * 1.01e-4 * 39]),
])
def test_thm1_bound_terms(point: dict, terms: list[float]) -> None:
    r = engine.bound(registry.get("fednorm.thm1"), vals({**point, **BOUND1}))
    assert list(r.terms.values()) == pytest.approx(terms, rel=1e-9)


def test_thm1_corrected_L_Phi() -> None:
    """Lemma B.1 (L628): (1+κ)L_f instead of κL_f/2 + L_f; at κ = 2 the B.3 lhs grow by 3/2."""
    printed, corr = by_source("fednorm.thm1", T1A), by_source("fednorm.thm1.corrected", T1A)
    for i in (2, 3, 4):
        assert corr[i][0] == pytest.approx(printed[i][0] * 3 / 2, rel=1e-12)
    assert [c[0] for j, c in enumerate(corr) if j not in (2, 3, 4)] == \
        [c[0] for j, c in enumerate(printed) if j not in (2, 3, 4)]
    # κ = 10: the counterexample's Φ'' = L_f(κ − 1) = 9 exceeds the printed 6, not the corrected 11
    for tid, lphi in (("fednorm.thm1", 6), ("fednorm.thm1.corrected", 11)):
        got = by_source(tid, {**T1A, "mu": Fr(1, 10)})[2][0]
        assert got == pytest.approx(64 * 3 * 1e-3 * lphi * 2 * 0.25, rel=1e-12)
    for tid in ("fednorm.rem3", "fednorm.cor1.1", "fednorm.cor1.2"):
        assert registry.get(tid + ".corrected").corrected_of == tid


def test_rem3_pl_conditions() -> None:
    """L1103: η_y L β_G ≤ 1/(16κ√M) and τγ_yκLβ_G²(1/P)max{κβ_L² max‖a‖₂²/‖a‖₁², 1} ≤ 1/64."""
    got = by_source("fednorm.rem3", {**T1A, "a_r2_max": Fr(1, 2)})
    assert got[6][:2] == pytest.approx((3 * 0.1 * 2 * 1 * 1 / 2 * 1, 1 / 64))  # max{2·1·½, 1}
    assert got[9][:2] == pytest.approx((0.01, 1 / (16 * 2 * 3)))               # 1/(16·2·√9)


# -- Corollary 1.1 (L175, proof L711) ----------------------------------------------------------------
def test_cor11_bound() -> None:
    p = {**T1A, **BOUND1, "chi2_pw": Fr(1, 2), "ydiff_sq": Fr(1, 4)}
    r = engine.bound(registry.get("fednorm.cor1.1"), vals(p))
    t = list(r.terms.values())
    # ε_opt terms times 2(2χ²β_G² + 1) = 4; 4χ²σ_G² = 4·½·4 = 8; 4L_f²·¼ = 1
    assert t == pytest.approx([4 * 20 / 30, 4 * 2.8, 4 * 3.2, 4 * 4 * 1.01e-4 * 39, 8, 1], rel=1e-9)
    r2 = engine.bound(registry.get("fednorm.cor1.1"), vals({**p, "chi2_pw": 0, "ydiff_sq": 0}))
    assert r2.value == pytest.approx(2 * (20 / 30 + 2.8 + 3.2 + 4 * 1.01e-4 * 39))  # w = p: 2ε_opt (L179)


# -- Corollary 1.2 (p_i = 1/n, τ_i = τ: A_w = B_w = E_w = 1, C_w = τ−1, D = (τ−1)(τ−1+β_L²)) -------
C12 = dict(n=4, P=2, tau=3, L_f=1, mu=Fr(1, 2), beta_L=1, beta_G=1, gamma_sx=Fr(1, 10**6),
           gamma_sy=Fr(1, 1000), eta_cx=Fr(1, 100), eta_cy=Fr(1, 100))


def test_cor12_conditions_and_bound() -> None:
    got = by_source("fednorm.cor1.2", C12)
    assert got[5][:2] == pytest.approx((0.01, 1 / 12))                 # B.4: 1/(2·3·√4)
    assert got[6][:2] == pytest.approx((3e-3 * 2 * 2 / 6, 1 / 64))     # max{1/12, (2/3)(1/4)}
    assert got[9][:2] == pytest.approx((0.01, 1 / (16 * 12**0.5)))     # D = 2·3 = 6, κD = 12
    assert got[10][:2] == pytest.approx((0.01, 1 / (64 * 2 * 6**0.5)))
    assert got[10][2] is False  # 0.01 > 0.00319
    r = engine.bound(registry.get("fednorm.cor1.2"),
                     vals({**C12, "T": 100, "Delta_Phi": 5, "sigma_L": 1, "sigma_G": 2}))
    # κ²Δ/(τγ_yT) = 20/0.3; κ²(η_x²+η_y²)L²((τ−1)σ_L² + Dσ_G²) = 4·2e-4·(2 + 24)
    assert r.terms["full sync: optimization"] == pytest.approx(20 / 0.3)
    assert r.terms["local updates"] == pytest.approx(8e-4 * 26)


def test_cor12_schedule_reproduces_L715() -> None:
    """With the L658 schedule, the FCP bound is κ²(Δ√(LX) + √(L/X)σ_L²)/√(nτT) + O(1/T) (L715)."""
    thm = registry.get("fednorm.cor1.2")
    v = {"n": 8, "P": 8, "tau": 4, "L_f": 1, "mu": 1, "beta_L": 0, "beta_G": 1, "Delta_Phi": 1,
         "sigma_L": 1, "sigma_G": 0, "T": 10**6}
    tot = sum(float(apply_schedule(thm, t.expr).subs(
        {s: v[s.name] for s in apply_schedule(thm, t.expr).free_symbols})) for t in thm.bound)
    X = 2  # Δ + σ_L²
    local = 2 * (4 - 1) / (4**2 * 10**6)  # κ²(η_x²+η_y²)L²(τ−1)σ_L², η = 1/(L τ √T)
    assert tot == pytest.approx((X**0.5 + X**-0.5) / (8 * 4 * 10**6) ** 0.5 + local, rel=1e-9)


# -- Theorem 2 (L1155–L1161) -----------------------------------------------------------------------
T2A = dict(n=4, P=2, L_f=1, tau_eff=2, gamma_sx=Fr(1, 100), gamma_sy=Fr(1, 10), S=3, R=2, G_x=1,
           sigma_L=1, sigma_G=1, beta_L=1, beta_G=2, A_w=2, B_w=1, C_w=1, D=4, E_w=2, F_w=1,
           Delta_bar_Phi=3, T=50, eta_cx=Fr(1, 100), eta_cy=Fr(1, 100), a_l1_max=2,
           w_a_max=Fr(1, 4))
T2B = {**T2A, "gamma_sy": Fr(1, 100)}
XI = 8 / 3  # A/(Pτ)(σ_L²+β_L²G_x²) + G_x²(n(P−1)/(P(n−1)) + F_w) = 1 + 2/3 + 1


@pytest.mark.parametrize("point,expected", [
    (T2A, [(2, 4, True), (4, 2, True),
           (0.2048, 1, True),          # 64·1e-4·4·1·max{4·2, 1}                 (L1155)
           (0.8 / 3, 0.125, False),    # 2·2·0.1·1·2·max{1/8, (2/3)(1/2)}        (L1157)
           (0.8 / 3, 0.125, False),    # 2·2·0.1·1·2·max{1/3, 1/4}               (L1157)
           (0.01, 1 / (4 * 2**0.5), True)]),  # C.2: 1/(2·1·2·√2)            (L1135)
    (T2B, [(2, 4, True), (4, 2, True), (0.2048, 1, True), (0.08 / 3, 0.125, True),
           (0.08 / 3, 0.125, True), (0.01, 1 / (4 * 2**0.5), True)]),
])
def test_thm2_conditions(point: dict, expected: list) -> None:
    got = by_source("fednorm.thm2", point)
    for (lhs, rhs, holds), (elhs, erhs, eholds) in zip(got, expected, strict=True):
        assert (lhs, rhs) == pytest.approx((elhs, erhs), rel=1e-9) and holds is eholds


@pytest.mark.parametrize("point,terms", [
    # Δ̄/(τγ_xT) = 3/(2·0.01·50); τγ_xLΞ; τγ_xLG(S−1)√Ξ; LR/(τγ_yS) = 2/(2·0.1·3);
    # γ_yL/P(Aσ_L² + σ_G²(τ(n−P)/(n−1)E + Bβ_L²)) = 0.05·(2 + 8/3 + 1); 2e-4·(1 + 4·2)
    (T2A, [3, 0.02 * XI, 0.04 * XI**0.5, 2 / 0.6, 0.05 * (3 + 8 / 3), 2e-4 * 9]),
    (T2B, [3, 0.02 * XI, 0.04 * XI**0.5, 2 / 0.06, 0.005 * (3 + 8 / 3), 2e-4 * 9]),
])
def test_thm2_bound_terms(point: dict, terms: list[float]) -> None:
    r = engine.bound(registry.get("fednorm.thm2"), vals(point))
    assert list(r.terms.values()) == pytest.approx(terms, rel=1e-9)


def test_thm2_corrected_server_condition() -> None:
    """Lemma C.3 (L1147) carries max{β_G², 1}: at β_G = 2 that lhs is 4× the printed one."""
    pt = {**T2A, "gamma_sy": Fr(1, 25)}  # printed lhs 2·2·0.04·2·(1/3) = 0.1067 ≤ 1/8
    p, c = by_source("fednorm.thm2", pt), by_source("fednorm.thm2.corrected", pt)
    assert p[3][0] == pytest.approx(0.32 / 3) and c[3][0] == pytest.approx(1.28 / 3)
    assert p[3][2] and not c[3][2]
    assert [x for j, x in enumerate(c) if j != 3] == [x for j, x in enumerate(p) if j != 3]


def test_cor21_corrected_factor_2() -> None:
    """Proof (51, L1251): 2ε'_opt, the statement (L241) has ε'_opt."""
    pt = vals({**T2A, "xdiff_sq": Fr(1, 8)})
    a = engine.bound(registry.get("fednorm.cor2.1"), pt)
    b = engine.bound(registry.get("fednorm.cor2.1.corrected"), pt)
    assert a.terms["prox mismatch"] == b.terms["prox mismatch"] == pytest.approx(1)  # 8·1·1/8
    eps_opt = 3 + 0.02 * XI + 0.04 * XI**0.5 + 2 / 0.6 + 0.05 * (3 + 8 / 3) + 2e-4 * 9
    assert a.value == pytest.approx(eps_opt + 1) and b.value == pytest.approx(2 * eps_opt + 1)


def test_cor22_conditions() -> None:
    got = by_source("fednorm.cor2.2", dict(n=4, P=2, tau=3, L_f=1, beta_L=1, beta_G=1,
                                           gamma_sy=Fr(1, 100), eta_cy=Fr(1, 100)))
    # D = 2·3 = 6: 64·1e-4·6·max{2, 1}; 2·3·0.01·2·max{1/12, 1/6}; …max{1/3, 1/12}; 1/(2·3·√2)
    assert [g[0] for g in got[2:]] == pytest.approx([0.0768, 0.02, 0.04, 0.01])
    assert [g[1] for g in got[2:]] == pytest.approx([1, 0.125, 0.125, 1 / (6 * 2**0.5)])


# -- max-step: two-sided ratio, integers, property test --------------------------------------------
def test_max_step_two_sided_ratio() -> None:
    """γ_x ≤ γ_y/(81κ²) bounds γ_y from below; B.5 bounds it from above (L638)."""
    base = {k: v for k, v in C12.items() if k != "gamma_sy"}
    base["eta_cx"] = Fr(1, 1000)  # η_x = 1/100 violates B.5's η_x condition (L640)
    r = engine.max_step(registry.get("fednorm.cor1.2"), "gamma_sy", vals(base))
    lo, hi = r.segments[0]
    assert lo == pytest.approx(81 * 4 * 1e-6, rel=1e-9)
    # B.5 first: τγ_yκLβ_G²(n/P)·(1/6) ≤ 1/64 → γ_y ≤ 1/(64·3·2·2/6) = 1/128
    assert hi == pytest.approx(1 / 128, rel=1e-9) and r.value == pytest.approx(1 / 128, rel=1e-9)


def test_max_step_integer_tau() -> None:
    """τ is an integer; η_x L β_G ≤ 1/(64κ√((τ−1)τ)) (β_L = 1, L640) caps it."""
    base = {k: v for k, v in C12.items() if k != "tau"}
    base.update(eta_cx=Fr(1, 1000), eta_cy=Fr(1, 1000))
    thm = registry.get("fednorm.cor1.2")
    r = engine.max_step(thm, "tau", vals(base))
    # 1e-3 ≤ 1/(128√(τ(τ−1))) ⇔ τ(τ−1) ≤ (1000/128)² = 61.03 → τ = 8 (56), τ = 9 gives 72
    assert r.value == 8
    assert not engine.check(thm, vals({**base, "tau": 9}))[0]


@settings(max_examples=6, deadline=None)
@given(n=st.integers(2, 50), frac=st.fractions(Fr(1, 50), 1), tau=st.integers(1, 20),
       kinv=st.integers(1, 20), bl=st.integers(0, 3))
def test_max_step_property(n: int, frac: Fr, tau: int, kinv: int, bl: int) -> None:
    """The value satisfies every condition; 1.000001× violates one (Corollary 1.2)."""
    P = max(1, min(n, int(frac * n)))
    base = dict(n=n, P=P, tau=tau, L_f=1, mu=Fr(1, kinv), beta_L=bl, beta_G=1,
                gamma_sx=Fr(1, 10**9), eta_cx=Fr(1, 10**6), eta_cy=Fr(1, 10**6))
    thm = registry.get("fednorm.cor1.2")
    r = engine.max_step(thm, "gamma_sy", vals(base))
    if r.value is None:
        return
    v = Fr(r.value)
    assert engine.check(thm, vals({**base, "gamma_sy": v}))[0]
    assert not engine.check(thm, vals({**base, "gamma_sy": v * Fr(1000001, 10**6)}))[0]


# -- the reference points of the golden file have P = n: what (n−P)/(n−1) multiplies is checked here
def at(thm, expr, point: dict):
    """``expr`` of ``thm`` (derived quantities expanded) at the exact values ``point`` (by name)."""
    e = sp.sympify(thm.expand(expr))
    missing = {s.name for s in e.free_symbols} - set(point)
    assert not missing, missing
    return e.xreplace({s: sp.Rational(str(point[s.name])) for s in e.free_symbols})


# κ = 2, (n−P)/(n−1) = 2/3, ε = 1/2
CL1 = dict(L_f=1, mu=Fr(1, 2), n=4, P=2, E_w=2, epsilon=Fr(1, 2), sigma_G=2, Delta_Phi=5, A_w=2,
           sigma_L=1, B_w=3, beta_L=1, tau_eff=3, C_w=3, D=9, tau_bar=2)


@pytest.mark.parametrize("tid", ["fednorm.thm1", "fednorm.thm1.corrected", "fednorm.rem3"])
def test_thm1_claimed_rounds_solve_rate_4_term_by_term(tid: str) -> None:
    """Each term of eq. (4) [L165] ≤ ε², solved for T:
    partial participation κ⁴σ_G²(n−P)/(n−1)E_w/(Pε⁴) = 16·4·(2/3)·2·16/2 = 2048/3;
    full synchronization κ⁴(Δ + A_wσ_L² + B_wβ_L²σ_G²)/(Pτ_effε⁴) = 16·19·16/6 = 2432/3;
    local updates κ²(C_wσ_L² + Dσ_G²)/(τ̄²ε²) = 4·39·4/4 = 156. Samples per client: τ̄T."""
    thm = registry.get(tid)
    total = sp.Rational(2048, 3) + sp.Rational(2432, 3) + 156
    assert at(thm, thm.claimed["iterations"], CL1) == total
    assert at(thm, thm.claimed["communications"], CL1) == total
    assert at(thm, thm.claimed["samples_per_client"], CL1) == 2 * total


CL2 = dict(n=4, P=2, epsilon=Fr(1, 2), sigma_G=2, Delta_bar_Phi=3, E_w=2, F_w=1, C_w=1, sigma_L=1,
           D=4, G_x=1, tau_bar=2, A_w=2, tau_eff=2)


@pytest.mark.parametrize("tid", ["fednorm.thm2", "fednorm.thm2.corrected"])
def test_thm2_claimed_rounds_solve_rate_6_term_by_term(tid: str) -> None:
    """Each term of eq. (6) [L235] ≤ ε², solved for T ((n−P)/(n−1) = 2/3, ε = 1/2):
    (σ_G²(n−P)/(n−1)Δ̄E_w√(1+F_w)/(PT))^{1/4}: T = 4·(2/3)·3·2·√2·256/2 = 2048√2;
    (C_wσ_L² + D(G_x² + σ_G²))/(τ̄²T^{3/4}): T = (21/(4·(1/4)))^{4/3} = 21^{4/3};
    (Δ̄σ_L²A_w√(1+F_w)/(τ_effPT))^{1/4}: T = 3·2·√2·256/4 = 384√2;
    Δ̄(1+F_w)/T^{3/4}·(τ_effP/(A_w + τ_eff(n−P)/(n−1)E_w))^{1/4} with τ_effP/(2 + 8/3) = 6/7:
    T = (6·4·(6/7)^{1/4})^{4/3} = 24^{4/3}(6/7)^{1/3}."""
    thm = registry.get(tid)
    total = (2048 * sp.sqrt(2) + sp.Integer(21)**sp.Rational(4, 3) + 384 * sp.sqrt(2)
             + sp.Integer(24)**sp.Rational(4, 3) * sp.Rational(6, 7)**sp.Rational(1, 3))
    for cost, factor in (("iterations", 1), ("communications", 1), ("samples_per_client", 2)):
        assert float(at(thm, thm.claimed[cost], CL2)) == pytest.approx(factor * float(total),
                                                                       rel=1e-12)


def test_thm1_schedule_with_partial_participation() -> None:
    """App. B.2 [L658–L660] at P < n: γ^s_y = √(P/(τ_eff L_f T X)), X = Δ + A_wσ_L² +
    (B_wβ_L² + (n−P)/(n−1)E_wτ_eff)σ_G² = 5 + 2 + (3 + 4)·4 = 35, so γ^s_y = √(1/5250);
    η^c_x = η^c_y = 1/(L_f τ̄ √T) = 1/20; γ^s_x = γ^s_y/(81κ²) = γ^s_y/324."""
    thm = registry.get("fednorm.thm1")
    pt = {**CL1, "T": 100}
    got = {s.name: at(thm, apply_schedule(thm, v), pt) for s, v in thm.schedule.items()}
    assert got["gamma_sy"] == sp.sqrt(sp.Rational(1, 5250))
    assert got["eta_cx"] == got["eta_cy"] == sp.Rational(1, 20)
    assert got["gamma_sx"] == got["gamma_sy"] / 324


def test_every_theorem_is_solved_for_eps_squared() -> None:
    """Definition 1 [L92] and Corollaries 1.2, 2.2 [L199, L257] ask for E‖∇Φ‖ ≤ ε, while every
    bound (eqs. (4), (5), (6), Corollary 2.1) is on the squared norm: rounds solve bound ≤ ε²."""
    for tid in IDS:
        thm = registry.get(tid)
        assert accuracy_target(thm) == thm.accuracy**2, tid


def test_regime_admits_the_papers_smallest_case() -> None:
    """Orders are compared only where the regime holds; it must admit Corollary 1.2's τ = O(1)
    case at τ = 1 (τ̄ = τ_eff = max‖a‖₁ = 1, max w a/‖a‖₁ = 1/n, E_w = 1) with identical
    clients (β_G = 1, σ_G = 0: Assumption 4 [L113]), κ = 1 (μ = L_f) and n = 2, P = 1, ε = 1."""
    thm = registry.get("fednorm.cor1.2")
    point = dict(n=2, P=1, tau=1, L_f=1, mu=1, epsilon=1, beta_G=1, beta_L=0)
    for rel in thm.regime:
        assert bool(at(thm, rel, point)), rel


# -- complexity ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cor12_report():
    return derive(registry.get("fednorm.cor1.2"))


@pytest.fixture(scope="module")
def cor22_report():
    return derive(registry.get("fednorm.cor2.2"))


@pytest.mark.slow  # ~25 s of CPU (run with -m slow); cor2.2 below runs by default
def test_cor12_orders(cor12_report) -> None:
    """L201–L203: κ²/ε² rounds and κ⁴/(nε⁴) (FCP), κ⁴/(Pε⁴) (PCP) — derived from the bound."""
    specs = [r for r in cor12_report.regimes if r.name != "general"]
    assert len(specs) == 3
    for reg in specs:
        assert {row.verdict for row in reg.rows} == {"agree"}, reg.name


def test_cor22_orders_and_condition_failure(cor22_report) -> None:
    for reg in cor22_report.regimes[1:]:
        assert {row.verdict for row in reg.rows} == {"agree"}, reg.name
    # with nτ = T the condition 2τγ_yL(n/P)max{(P−1)/(n−1), …} ≤ 1/8 (L1157) reads 2L_f√T ≤ 1/8
    fcp = [c for c in cor22_report.schedule if "(P-1)/(n-1)" in c.condition
           and "full participation" in c.condition]
    assert fcp and fcp[0].verdict == "partial"
    general = [c for c in cor22_report.schedule if c.condition.startswith("C.2")]
    assert general[0].verdict == "threshold"


# -- CLI --json -------------------------------------------------------------------------------------
def test_cli_json() -> None:
    run = CliRunner().invoke
    for tid in ("fednorm.thm1", "fednorm.cor2.2"):
        out = run(app, ["show", tid, "--json"])
        assert out.exit_code == 0 and json.loads(out.stdout)["id"] == tid
    args = [f"{k}={v}" for k, v in T1B.items()]
    out = run(app, ["check", "fednorm.thm1", "--json", "--set", *args])
    assert out.exit_code == 0 and json.loads(out.stdout)["feasible"] is True
    args = [f"{k}={v}" for k, v in T1A.items() if k != "gamma_sx"]
    out = run(app, ["max-step", "fednorm.thm1", "--vary", "gamma_sx", "--json", "--set", *args])
    data = json.loads(out.stdout)  # γ^s_y = 1/10 leaves no feasible γ^s_x: exit 1
    assert out.exit_code == 1 and data["vary"] == "gamma_sx" and data["value"] is None
    args = [f"{k}={v}" for k, v in T1B.items() if k != "gamma_sx"]
    out = run(app, ["max-step", "fednorm.thm1", "--vary", "gamma_sx", "--json", "--set", *args])
    data = json.loads(out.stdout)
    assert out.exit_code == 0 and data["value"] >= 1e-6 and data["intervals"]
    args = [f"{k}={v}" for k, v in {**T1A, **BOUND1}.items()]
    out = run(app, ["bound", "fednorm.thm1", "--json", "--set", *args])
    assert out.exit_code == 0 and json.loads(out.stdout)["value"] == pytest.approx(
        20 / 30 + 2.8 + 3.2 + 4 * 1.01e-4 * 39)
