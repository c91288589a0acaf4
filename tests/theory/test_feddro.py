"""FedDRO theorems: regression values of the encoded conditions and bounds at reference points
computed by hand from the paper (FedDRO, Khanduri et al., arXiv:2311.12652; the paper's numbering,
with [Lnnn] a line of its v1 text)."""

from fractions import Fraction as F

import pytest
import sympy as sp

from fedbounds import complexity, engine, registry
from fedbounds.theorems import feddro

# counterexample constants (derived from eq. (10) [L438]): L_f = 1/2, B_f = 1, B_g = 4,
# L_g = L_h = 0, Δ_g = 3
CE = {"L_f": F(1, 2), "B_f": F(1), "B_g": F(4), "L_g": F(0), "L_h": F(0), "K": F(2), "b": F(1)}


def test_all_ids_registered() -> None:
    ids = set(registry.theorems())
    for base in ("feddro.thm4.1", "feddro.thm4.2", "feddro.thm5.1", "feddro.cor1", "feddro.cor2"):
        assert base in ids and base + ".corrected" in ids
        assert registry.get(base + ".corrected").corrected_of == base


def test_T_th_counterexample_by_hand() -> None:
    # Theorem F.1 [L629]: 4(L_Φ|b|K + 8B_g²)²/(|b|K), L_Φ = B_g²L_f = 8 (Lemma 3.1): 41472
    ok, res = engine.check(registry.get("feddro.thm5.1"), {**CE, "I": F(2), "T": F(41472)})
    assert ok and res[0].rhs == 41472.0 and res[0].margin == 0.0
    ok, _ = engine.check(registry.get("feddro.thm5.1"), {**CE, "I": F(2), "T": F(41471)})
    assert not ok


def test_beta_le_1_needs_131072() -> None:
    # β = 4B_g⁴L_f²√(|b|K/T) = 256√(2/T) ≤ 1 ⇔ T ≥ 131072 (Theorem 5.1 [L234]; β^t < 1 [L226])
    thm = registry.get("feddro.thm5.1.corrected")
    ok, res = engine.check(thm, {**CE, "I": F(2), "T": F(131072)})
    assert ok and next(r for r in res if r.name == "beta <= 1").lhs == pytest.approx(1.0)
    ok, res = engine.check(thm, {**CE, "I": F(2), "T": F(41472)})
    assert not ok and [r.name for r in res if not r.holds] == ["beta <= 1"]
    # as printed, T_th alone is accepted
    assert engine.check(registry.get("feddro.thm5.1"), {**CE, "I": F(2), "T": F(41472)})[0]


def test_thm51_bound_counterexample_by_hand() -> None:
    # Theorem 5.1 [L236–L239] with L̄ printed [L980] = 40·B_g⁴L_f² = 2560;
    # C_Δg = 6·2560 + 96·16 = 16896;
    # 𝒞 = max(2·1/10⁶, 1/√(2·10⁶)); heterogeneity = 16896·9/√(2·10⁶) = 107.52548…
    vals = {**CE, "I": F(2), "T": F(10**6), "Delta_g": F(3), "Delta_h": F(0), "sigma_h": F(0),
            "sigma_g": F(0), "Phi_gap0": F(0), "y_err0": F(0)}
    r = engine.bound(registry.get("feddro.thm5.1"), vals)
    assert r.terms["heterogeneity"] == pytest.approx(16896 * 9 / 2e6**0.5, rel=1e-12)
    assert r.derived["Lbar_fg"] == 2560.0 and r.derived["c_beta"] == 256.0
    # with Φ(x̄⁰) − Φ* = √17/2 − 2: 107.5256 (computed by hand)
    vals["Phi_gap0"] = F(615528128088303, 10**16)
    assert engine.bound(registry.get("feddro.thm5.1"), vals).value == pytest.approx(107.5256, abs=1e-3)


def test_Lbar_corrected_coefficient() -> None:
    # [L980] prints 10L_h² + B_f²L_g² + 40B_g⁴L_f²; Theorem F.6 [L924–L927] gives 20 B_f²L_g²
    pt = {feddro.L_h: 0, feddro.B_f: 1, feddro.L_g: 1, feddro.B_g: 1, feddro.L_f: 1}
    assert feddro.LBAR_PRINTED.subs(pt) == 41 and feddro.LBAR_CORRECTED.subs(pt) == 60
    # c_β corrected only differs for B_g < 1 (Lemma F.2's Term V coefficient is 4B_g²L_f²)
    assert feddro.C_BETA_CORRECTED.subs({feddro.B_g: sp.Rational(1, 2), feddro.L_f: 1}) == 1
    assert feddro.C_BETA.subs({feddro.B_g: sp.Rational(1, 2), feddro.L_f: 1}) == sp.Rational(1, 4)


def test_thm41_step_bounds_per_case() -> None:
    thm = registry.get("feddro.thm4.1")
    ok, res = engine.check(thm, {"eta": F(1, 20), "I": F(2), "x0": F(1, 2)})
    by = {r.name: r.holds for r in res}
    assert not ok and by["eta < C_eta (Case I)"] and not by["eta < C_eta (Case II)"]  # [L481, L531]
    ms = engine.max_step(thm, "eta", {"I": F(2), "x0": F(1, 2)})
    assert ms.value == pytest.approx(1 / 22) and ms.binding == "eta < C_eta (Case II)"
    assert not engine.check(thm, {"eta": F(1, 100), "I": F(1), "x0": F(1, 2)})[0]  # I > 1 [L188]
    assert feddro.COUNTEREXAMPLE.lower_bound_grad_sq == sp.Rational(1, 17)
    ce = feddro.COUNTEREXAMPLE  # eq. (10) [L434–L438]: Φ(x) = √(x² + 4), as sympy writes it
    assert ce.Phi == sp.sqrt(ce.x**2 + 4)
    assert ce.grad_Phi == ce.x / sp.sqrt(ce.x**2 + 4)


def test_cor1_I_condition_exact_form() -> None:
    # I − 1 ≤ T^{1/4}/(|b|K)^{3/4}: T = 16·8³ = 8192, |b|K = 8 → 1 + 8192^{1/4}/8^{3/4} = 3
    base = {"L_f": F(1, 100), "B_f": F(1), "B_g": F(1, 10), "L_g": F(0), "L_h": F(0),
            "K": F(8), "b": F(1), "T": F(8192)}
    ok3, r3 = engine.check(registry.get("feddro.cor1"), {**base, "I": F(3)})
    ok4, r4 = engine.check(registry.get("feddro.cor1"), {**base, "I": F(4)})
    assert r3[0].holds and not r4[0].holds


def test_cor2_complexity_two_communication_counts() -> None:
    rep = complexity.derive(registry.get("feddro.cor2"))
    rows = {r.cost: r for r in rep.regimes[0].rows}
    eps = feddro.epsilon
    assert rows["samples"].verdict == "agree"
    assert sp.simplify(rows["samples"].derived_order - eps**-2) == 0
    assert rows["communications (model sharing)"].verdict == "agree"  # ε^{-3/2} (Cor. 2 (ii))
    assert sp.simplify(rows["communications (model sharing)"].derived_order
                       - eps ** sp.Rational(-3, 2)) == 0
    assert rows["communications (all rounds)"].verdict == "disagree"  # ȳ every iteration
    rep_c = complexity.derive(registry.get("feddro.cor2.corrected"))
    rows_c = {r.cost: r for r in rep_c.regimes[0].rows}
    assert rows_c["communications (all rounds)"].verdict == "agree"
    assert sp.simplify(rows_c["communications (all rounds)"].derived_order
                       - 1 / (feddro.K * feddro.b * eps**2)) == 0


def test_lemma31_counterexample_bound_8() -> None:
    # Lemma 3.1 [L148]: L_Φ = L_h + B_f L_g + B_g² L_f = 16 · 1/2 = 8 on the counterexample
    r = engine.bound(registry.get("feddro.lem3.1"), {k: CE[k] for k in ("L_h", "B_f", "L_g",
                                                                         "B_g", "L_f")})
    assert r.value == 8.0


def test_thmF1_exact_bound_and_beta_condition() -> None:
    # Theorem F.1 [L634–L636] at the counterexample with σ = 0, I = 1: only the initialization
    # and the heterogeneity terms remain; heterogeneity = 96·B_f²B_g²Δ_g²/√(|b|KT) = 96·16·9/√(2·10⁶)
    vals = {**CE, "I": F(1), "T": F(10**6), "Delta_g": F(3), "Delta_h": F(0), "sigma_h": F(0),
            "sigma_g": F(0), "Phi_gap0": F(0), "y_err0": F(0)}
    r = engine.bound(registry.get("feddro.thmF.1"), vals)
    assert r.terms["heterogeneity"] == pytest.approx(96 * 16 * 9 / 2e6**0.5, rel=1e-12)
    assert r.terms["variance x drift"] == 0.0 and r.terms["heterogeneity x drift"] == 0.0
    # the corrected statement writes β ≤ 1 as T ≥ c_β²|b|K = 256²·2 = 131072 (β^t < 1 [L226])
    ok, res = engine.check(registry.get("feddro.thmF.1.corrected"), {**CE, "I": F(2),
                                                                      "T": F(131071)})
    assert not ok and [x.name for x in res if not x.holds] == ["T >= c_beta^2 bK (beta <= 1)"]
    assert next(x for x in res if not x.holds).rhs == 131072.0


def test_lemmaF3_step_bound() -> None:
    # Theorem F.6 [L920]: η ≤ 1/(3I√(24L_h² + 24B_f²L_g²)); L_h = 3, L_g = 0, I = 2: 1/(6·√216)
    ok, res = engine.check(registry.get("feddro.lemF.3"), {"eta": F(1, 100), "I": F(2),
                                                           "L_h": F(3), "B_f": F(1), "L_g": F(0)})
    assert ok and res[0].rhs == pytest.approx(1 / (6 * 216**0.5), rel=1e-14)


def test_lemmaF4_terms_by_hand() -> None:
    # proof of Lemma F.4 [L875–L878] with η = 1/10, β = 1/2, B_g = 2, B_f = 1, |b|K = 2, σ_g = 1,
    # the rest 0: contraction (1−β)² = 1/4; variance g (2β² + 4η²(1−β)²B_g²B_f²)σ_g²/(|b|K) = 0.27
    vals = {"eta": F(1, 10), "beta": F(1, 2), "B_g": F(2), "B_f": F(1), "b": F(1), "K": F(2),
            "sigma_g": F(1), "track": F(1), "grad_mean_sq": F(0), "drift": F(0), "L_h": F(0),
            "L_g": F(0), "sigma_h": F(0), "Delta_h": F(0), "Delta_g": F(0)}
    r = engine.bound(registry.get("feddro.lemF.4"), vals)
    assert r.terms["contraction"] == 0.25
    assert r.terms["variance g"] == pytest.approx(0.27, rel=1e-14)


def test_lemmaF5_step_bounds_and_rhs_by_hand() -> None:
    # Lemma F.5 [L892] at the counterexample (L_Φ = 8, B_g = 4, |b|K = 2): η ≤ 2/(2(16 + 128))
    # = 1/144; the second bound is 2·64/0 = ∞ (L_h = L_g = 0); β = c_βη = 256η [L890]
    base = {**CE, "Delta_g": F(3), "Delta_h": F(0), "sigma_h": F(0), "sigma_g": F(0)}
    thm = registry.get("feddro.lemF.5")
    ok, res = engine.check(thm, {**base, "eta": F(1, 300)})
    by = {x.name: x for x in res}
    assert by["eta <= bK/(2(L_Phi bK + 8B_g^2))"].rhs == pytest.approx(1 / 144, rel=1e-14)
    assert by["beta <= 1"].lhs == pytest.approx(256 / 300) and ok
    assert not engine.check(thm, {**base, "eta": F(1, 200)})[0]  # β = 1.28 > 1
    # RHS (Lemma F.5 [L896–L898]): −η/2·‖∇Φ‖² + η·8B_g⁴L_f²·drift + 48η²B_f²B_g²Δ_g²/(|b|K)
    r = engine.bound(thm, {**base, "eta": F(1, 300), "grad_sq": F(1, 2), "drift": F(1, 10)})
    assert r.terms["descent"] == pytest.approx(-1 / 1200, rel=1e-14)
    assert r.terms["drift"] == pytest.approx(512 / 3000, rel=1e-14)
    assert r.terms["heterogeneity"] == pytest.approx(48 * 16 * 9 / (2 * 300**2), rel=1e-14)
    # the corrected c_β = 4max(B_g², B_g⁴)L_f² differs only for B_g < 1 (erratum on Lemma F.2)
    small = {**base, "B_g": F(1, 5), "eta": F(1, 10), "grad_sq": F(0), "drift": F(0)}
    assert engine.bound(thm, small).derived["c_beta"] == pytest.approx(4 * 0.2**4 / 4)
    assert engine.bound(registry.get("feddro.lemF.5.corrected"), small).derived["c_beta"] == \
        pytest.approx(4 * 0.2**2 / 4)


def test_counterexample_constants_follow_from_the_instance() -> None:
    # Appendix D, eq. (10) [L434–L438]: g_1 = 4x − 4, g_2 = −2x + 4, f(y) = √(y² + 4), h = 0,
    # deterministic oracles. L_f = max f'' = f''(0) = 4/4^{3/2} = 1/2; B_f = sup|f'| = 1;
    # B_g = max|g_k'| = 4 (Assumption 1.2); L_g = 0 (linear g_k); Δ_g = max|g_k' − g'| = |4 − 1| = 3
    # (Assumption 3); Δ_h = σ_h = σ_g = 0; K = 2 clients.
    ce = feddro.COUNTEREXAMPLE
    fp, slopes = sp.diff(ce.f, ce.y), [sp.diff(g, ce.x) for g in ce.g]
    g_slope = sp.Add(*slopes) / ce.K
    derived = {"L_f": sp.diff(ce.f, ce.y, 2).subs(ce.y, 0), "B_f": sp.limit(fp, ce.y, sp.oo),
               "B_g": max(abs(s) for s in slopes), "L_g": max(abs(sp.diff(g, ce.x, 2)) for g in ce.g),
               "L_h": 0, "Delta_g": max(abs(s - g_slope) for s in slopes), "Delta_h": 0,
               "sigma_h": 0, "sigma_g": 0, "K": ce.K}
    assert derived == {"L_f": sp.Rational(1, 2), "B_f": 1, "B_g": 4, "L_g": 0, "L_h": 0,
                       "Delta_g": 3, "Delta_h": 0, "sigma_h": 0, "sigma_g": 0, "K": 2}
    assert feddro.CE_CONSTANTS == derived
    assert sp.diff(ce.f, ce.y, 3).subs(ce.y, 0) == 0  # f''(0) is the maximum of f''


def test_counterexample_is_proved_for_two_local_steps() -> None:
    # Appendix D proves Theorem 4.1 with I = 2 local updates (Cases I and II [L461, L511]); the
    # printed I > 1 [L188] and the corrected I ≥ 2 both admit it, I = 1 neither
    ce = feddro.COUNTEREXAMPLE
    assert ce.I_proved == 2
    for tid in ("feddro.thm4.1", "feddro.thm4.1.corrected"):
        at = {"eta": F(1, 23), "x0": F(ce.x0)}
        assert engine.check(registry.get(tid), {**at, "I": F(ce.I_proved)})[0]
        assert not engine.check(registry.get(tid), {**at, "I": F(1)})[0]


def test_cor2_regime_is_where_the_schedule_gives_one_local_step() -> None:
    # Corollary 2 [L253] with Corollary 3's I = T^{1/4}/(|b|K)^{3/4} [L639]: I ≥ 1 ⇔ T ≥ (|b|K)³;
    # |b|K = 8: T = 512 gives I = 512^{1/4}/8^{3/4} = 1 exactly, T = 511 gives I < 1
    thm = registry.get("feddro.cor2")
    at = {feddro.b: 1, feddro.K: 8}
    assert feddro.I_COR3.subs({**at, feddro.T: 512}) == 1
    assert [bool(r.subs({**at, feddro.T: 512})) for r in thm.regime] == [True]
    assert [bool(r.subs({**at, feddro.T: 511})) for r in thm.regime] == [False]
    assert bool(feddro.I_COR3.subs({**at, feddro.T: 511}) < 1)
    assert registry.get("feddro.cor2.corrected").regime == thm.regime


def test_assumptions_listed_as_the_statements_state() -> None:
    # Theorems 4.1, 4.2 [L188, L194] and Lemmas F.3–F.5 [L725, L819, L890]: Assumptions 1–3;
    # Lemma 3.1 [L148]: Assumption 1 only; Theorem 5.1 [L234] and its corollaries: 1–3 plus the
    # unstated premises of the proof (marked derived)
    def numbers(tid: str) -> list[str]:
        return [a.split()[1] if a.startswith("Assumption") else "derived"
                for a in registry.get(tid).assumptions]

    for tid in ("feddro.thm4.1", "feddro.thm4.1.corrected", "feddro.thm4.2",
                "feddro.thm4.2.corrected", "feddro.lemF.3", "feddro.lemF.4", "feddro.lemF.5",
                "feddro.lemF.5.corrected"):
        assert numbers(tid) == ["1", "2", "3"], tid
    assert numbers("feddro.lem3.1") == ["1"]
    for tid in ("feddro.thm5.1", "feddro.thmF.1", "feddro.cor1", "feddro.cor2"):
        assert numbers(tid) == ["1", "2", "3", "derived"], tid
