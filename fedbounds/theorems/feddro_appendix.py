"""FedDRO, Appendix F statements the numeric claims evaluate: Lemma 3.1, Theorem F.1 (and its
correction), Lemmas F.3, F.4 and F.5 (and its correction). They belong to the feddro paper (the
same ``PAPER`` as :mod:`.feddro`, whose notation and constants they use)."""

from __future__ import annotations

import sympy as sp

from ..model import (
    Condition,
    Erratum,
    Term,
    Theorem,
)
from . import feddro
from .feddro import (
    ASSUMPTIONS,
    C_BETA,
    C_BETA_CORRECTED,
    E_BATCH,
    E_BETA,
    E_CBETA,
    E_LBAR,
    LEMMA31,
    B_f,
    B_g,
    Delta_g,
    Delta_h,
    I,
    K,
    L_f,
    L_g,
    L_h,
    L_Phi,
    Lbar,
    N,
    T,
    T_th_conditions,
    b,
    beta,
    bound_F1_terms,
    c_beta,
    derived_quantities,
    drift,
    epsilon,
    eta,
    grad_mean_sq,
    grad_sq,
    sigma_g,
    sigma_h,
    track,
)

PAPER = feddro.PAPER  # the same paper object: the registry adds these statements to it

E_F5_MIN = Erratum(
    "lemmaF5-min", "Lemma F.5 [L892]", "η^t ≤ {a, b}", "η^t ≤ min{a, b}, and β^{t+1} ≤ 1",
    "The set braces miss 'min'; the cancellation (1 − β)² − 1 + c_βη ≤ 0 of the proof [L906] also "
    "needs β^{t+1} = c_βη^t ≤ 1 (β^t ∈ (0, 1), after eq. (8) [L226]).")


def _lem31() -> Theorem:
    return Theorem(
        id="feddro.lem3.1", paper="feddro", title="Φ is L_Φ-smooth (Lemma 3.1)",
        source="Lemma 3.1 [L146–L148]",
        statement="Under Assumption 1, Φ = h + f∘g has an L_Φ-Lipschitz gradient with "
                  "L_Φ = L_h + B_f L_g + B_g² L_f [L148].",
        notation=N, assumptions=ASSUMPTIONS[:1],
        bound_lhs="sup_x ‖∇²Φ(x)‖ (the smoothness constant of Φ)",
        bound=[Term("L_Phi", LEMMA31, "Lemma 3.1 [L148]")], algorithms=[])


def _thmF1(corrected: bool) -> Theorem:
    conds = T_th_conditions()
    if corrected:  # β = c_β√(|b|K/T) ≤ 1 written for T (erratum beta-le-1)
        conds.append(Condition("T >= c_beta^2 bK (beta <= 1)", sp.Ge(T, c_beta**2 * b * K),
                               "after eq. (8): β^t ∈ (0, 1) [L226]; added to Theorem F.1 "
                               "[derived]",
                               "⇔ β = c_β√(|b|K/T) ≤ 1"))
    return Theorem(
        id="feddro.thmF.1" + (".corrected" if corrected else ""), paper="feddro",
        title="Convergence of FedDRO, exact appendix form (Theorem F.1)"
              + (" (corrected: L̄ coefficient 20, β ≤ 1, c_β = 4max(B_g²,B_g⁴)L_f²)"
                 if corrected else ""),
        source="Theorem F.1 [L625–L636]; proof: Appendix F [L976–L1008]",
        statement="Theorem 5.1 with the bound before 𝒞 is introduced: the initialization, "
                  "variance × drift, variance, heterogeneity × drift and heterogeneity terms of "
                  "Theorem F.1 [L634–L636]."
                  + (" Corrected as feddro.thm5.1.corrected." if corrected else ""),
        notation=N, assumptions=ASSUMPTIONS, derived=derived_quantities(corrected), conditions=conds,
        bound_lhs="E‖∇Φ(x̄^{a(T)})‖² = (1/T)Σ_t E‖∇Φ(x̄^t)‖² (proof of Theorem 5.1 "
                  "[L982, L990])",
        bound=bound_F1_terms(Lbar, c_beta), errata=[E_LBAR, E_BETA, E_CBETA, E_BATCH],
        corrected_of="feddro.thmF.1" if corrected else None, horizon=T, accuracy=epsilon,
        algorithms=["feddro"],
        notes=["Theorem 5.1's main-text bound (feddro.thm5.1) is this bound with 𝒞 = "
               "max{|b|K(I−1)²/T, 1/√(|b|KT)} factored out (Theorem 5.1 [L236–L239])."])


def _lemF3() -> Theorem:
    lf = 24 * L_h**2 + 24 * B_f**2 * L_g**2
    return Theorem(
        id="feddro.lemF.3", paper="feddro",
        title="Client drift summed over a run (Lemma F.3, Term XIII of Theorem F.6's proof)",
        source="Lemma F.3 [L723–L727]; summed as Term XIII in the proof of Theorem F.6 "
               "[L936–L965]",
        statement="With η ≤ 1/(3I√(24L_h² + 24B_f²L_g²)) (so 1 − η²I²(24L_h² + 24B_f²L_g²) ≥ 8/9), "
                  "Σ_{t<T}(1/K)Σ_k E‖x_k^t − x̄^t‖² ≤ η²(I−1)²(5σ_h²/|b_h| + 5B_f²σ_g²/|b_g|)T + "
                  "η²(I−1)²(15Δ_h² + 15B_f²Δ_g²)T (proof of Theorem F.6 [L964–L965]).",
        notation=N, assumptions=ASSUMPTIONS[:3],
        conditions=[Condition("eta <= 1/(3I sqrt(24L_h^2 + 24B_f^2L_g^2))",
                              sp.Le(eta, 1 / (3 * I * sp.sqrt(lf))),
                              "Theorem F.6 and its proof [L920, L962]")],
        bound_lhs="Term XIII = Σ_{t<T} (1/K)Σ_k E‖x_k^t − x̄^t‖² (proof of Theorem F.6 [L964])",
        bound=[Term("variance", eta**2 * (I - 1) ** 2 * (5 * sigma_h**2 + 5 * B_f**2 * sigma_g**2)
                    / b * T, "proof of Theorem F.6, Term XIII [L965]"),
               Term("heterogeneity", eta**2 * (I - 1) ** 2 * (15 * Delta_h**2
                                                              + 15 * B_f**2 * Delta_g**2) * T,
                    "proof of Theorem F.6, Term XIII [L965]")],
        algorithms=["feddro"], notes=["|b_h| = |b_g| = |b|."])


def _lemF4() -> Theorem:
    q = eta**2 * (1 - beta) ** 2 * B_g**2 / (b * K)
    return Theorem(
        id="feddro.lemF.4", paper="feddro", title="Tracking error of ȳ (Lemma F.4, proof form)",
        source="Lemma F.4 [L817–L826] (proof form [L873–L878])",
        statement="E‖ȳ^{t+1} − (1/K)Σ_k g_k(x_k^{t+1})‖² ≤ (1−β)² E‖ȳ^t − (1/K)Σ_k g_k(x_k^t)‖² "
                  "+ 8η²(1−β)²B_g²/(|b|K)·E‖(1/K)Σ_k E[∇Φ_k]‖² + η²(1−β)²B_g²(96L_h² + "
                  "96B_f²L_g²)/(|b|K)·drift + 4η²(1−β)²B_g²σ_h²/(|b|K) + (2β² + 4η²(1−β)²B_g²"
                  "B_f²)σ_g²/(|b|K) + 48η²(1−β)²B_g²(Δ_h² + B_f²Δ_g²)/(|b|K) (proof of "
                  "Lemma F.4 [L875–L878], |b_h| = |b_g| = |b|).",
        notation=N, assumptions=ASSUMPTIONS[:3],
        conditions=[Condition("beta <= 1", sp.Le(beta, 1), "after eq. (8): β^t ∈ (0, 1) [L226]")],
        bound_lhs="E‖ȳ^{t+1} − (1/K)Σ_k g_k(x_k^{t+1})‖²",
        bound=[Term("contraction", (1 - beta) ** 2 * track, "proof of Lemma F.4 [L876]"),
               Term("mean gradient", 8 * q * grad_mean_sq, "proof of Lemma F.4 [L876]"),
               Term("drift", q * (96 * L_h**2 + 96 * B_f**2 * L_g**2) * drift,
                    "proof of Lemma F.4 [L877]"),
               Term("variance h", 4 * q * sigma_h**2, "proof of Lemma F.4 [L877]"),
               Term("variance g", (2 * beta**2 + 4 * eta**2 * (1 - beta) ** 2 * B_g**2 * B_f**2)
                    / (b * K) * sigma_g**2, "proof of Lemma F.4 [L878]"),
               Term("heterogeneity", 48 * q * (Delta_h**2 + B_f**2 * Delta_g**2),
                    "proof of Lemma F.4 [L878]")],
        algorithms=["feddro"],
        notes=["Indexed as in the proof (ȳ^t → ȳ^{t+1}, β^{t+1}); the printed statement "
               "[L821–L824] shifts the indices. Step (g) of the proof [L844–L847] ignores the "
               "averaging jump x_k^{t+1} = x̄^{t+1} (Algorithm 2, line 8)."])


def _lemF5(corrected: bool) -> Theorem:
    bK = b * K
    return Theorem(
        id="feddro.lemF.5" + (".corrected" if corrected else ""), paper="feddro",
        title="Descent of the potential V^t (Lemma F.5)"
              + (" (corrected: c_β = 4max(B_g², B_g⁴)L_f²)" if corrected else ""),
        source="Lemma F.5 [L888–L898]; potential (21) [L884]",
        statement="With V^t = EΦ(x̄^t) + E‖ȳ^t − (1/K)Σ_k g_k(x_k^t)‖² (21), β^{t+1} = c_βη^t, "
                  "c_β = 4B_g⁴L_f² and η^t ≤ min{|b|K/(2(L_Φ|b|K + 8B_g²)), |b|K(L_h² + 2B_f²L_g² "
                  "+ 4B_g⁴L_f²)/(B_g²(96L_h² + 96B_f²L_g²))}: V^{t+1} − V^t ≤ −(η/2)E‖∇Φ(x̄^t)‖² "
                  "+ η(2L_h² + 4B_f²L_g² + 8B_g⁴L_f²)·drift + the σ and Δ terms [L896–L898]."
                  + (" Corrected [derived]: c_β = 4max(B_g², B_g⁴)L_f² (Term V's coefficient in "
                     "Lemma F.2 is 4B_g²L_f²η, erratum lemmaF2-track-coefficient)."
                     if corrected else ""),
        notation=N, assumptions=ASSUMPTIONS[:3],
        derived={L_Phi: LEMMA31, c_beta: C_BETA_CORRECTED if corrected else C_BETA,
                 beta: c_beta * eta},
        conditions=[
            Condition("eta <= bK/(2(L_Phi bK + 8B_g^2))",
                      sp.Le(eta, bK / (2 * (L_Phi * bK + 8 * B_g**2))), "Lemma F.5 [L892]"),
            Condition("eta <= bK(L_h^2+2B_f^2L_g^2+4B_g^4L_f^2)/(B_g^2(96L_h^2+96B_f^2L_g^2))",
                      sp.Le(eta, bK * (L_h**2 + 2 * B_f**2 * L_g**2 + 4 * B_g**4 * L_f**2)
                            / (B_g**2 * (96 * L_h**2 + 96 * B_f**2 * L_g**2))),
                      "Lemma F.5 [L892] (the printed braces miss 'min')"),
            Condition("beta <= 1", sp.Le(beta, 1),
                      "after eq. (8): β^t ∈ (0, 1) [L226]; used by the proof of Lemma F.5 [L906]")],
        bound_lhs="V^{t+1} − V^t (potential (21) [L884])",
        bound=[Term("descent", -eta / 2 * grad_sq, "Lemma F.5 [L896]"),
               Term("drift", eta * (2 * L_h**2 + 4 * B_f**2 * L_g**2 + 8 * B_g**4 * L_f**2)
                    * drift, "Lemma F.5 [L896]"),
               Term("variance", 2 * eta**2 * L_Phi / bK * sigma_h**2
                    + 4 * eta**2 * B_g**2 / bK * sigma_h**2
                    + 2 * eta**2 * L_Phi * B_f**2 / bK * sigma_g**2
                    + eta**2 * (2 * c_beta**2 + 4 * B_g**2 * B_f**2) / bK * sigma_g**2,
                    "Lemma F.5 [L897]"),
               Term("heterogeneity", 48 * eta**2 * B_g**2 / bK * Delta_h**2
                    + 48 * eta**2 * B_f**2 * B_g**2 / bK * Delta_g**2, "Lemma F.5 [L898]")],
        errata=[E_F5_MIN, E_CBETA] if corrected else [E_F5_MIN],
        corrected_of="feddro.lemF.5" if corrected else None, algorithms=["feddro"],
        notes=["|b_h| = |b_g| = |b|; 'L_F' of the print [L896] is L_f."])



lem31 = _lem31()
thmF1 = _thmF1(False)
thmF1c = _thmF1(True)
lemF3 = _lemF3()
lemF4 = _lemF4()
lemF5 = _lemF5(False)
lemF5c = _lemF5(True)

THEOREMS = [lem31, thmF1, thmF1c, lemF3, lemF4, lemF5, lemF5c]
