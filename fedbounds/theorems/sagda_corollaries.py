"""SAGDA, Corollaries 1–3 (and their corrections): the step-size schedules and the orders they
claim. They belong to the sagda paper (the same ``PAPER`` as :mod:`.sagda`, whose notation,
conditions and bound terms they use)."""

from __future__ import annotations

import sympy as sp

from ..minmax import Min
from ..model import (
    Condition,
    Specialization,
    Theorem,
)
from . import sagda
from .sagda import (
    ACC,
    ALG_FSGDA,
    ALG_SAGDA,
    COSTS_FSGDA,
    COSTS_SAGDA,
    E_COR1_CAP,
    E_ETA_Y_TYPO,
    E_TABLE1_COR3,
    FIXED,
    FSGDA_SRC,
    LHS,
    N1,
    NF,
    OPT1_SRC,
    REGIME,
    RELATIONS,
    K,
    L_f,
    M,
    R,
    T,
    build_thm1_opt1,
    build_thm2,
    c_x,
    c_y,
    epsilon,
    eta_xg,
    eta_xl,
    eta_yg,
    eta_yl,
    fsgda_conditions,
    fsgda_derived,
    m,
    mu,
    opt1_conditions,
)

PAPER = sagda.PAPER  # the same paper object: the registry adds these statements to it


# -- corollaries -----------------------------------------------------------------------------------
def _schedule(eta_x_of_T: sp.Expr, eta_y_of_T: sp.Expr, cap: sp.Expr) -> dict:
    """Local steps at their cap, global steps so that η_x = η_{x,l}η_{x,g} follows Θ(·)."""
    return {eta_xl: cap, eta_yl: cap, eta_xg: eta_x_of_T / eta_xl, eta_yg: eta_y_of_T / eta_yl}


def _cap_conditions(cap: sp.Expr, src: str) -> list[Condition]:
    return [Condition("eta_xl <= local cap", sp.Le(eta_xl, cap), src),
            Condition("eta_yl <= local cap", sp.Le(eta_yl, cap), src)]


T_OMEGA = Condition("T >= mK", sp.Ge(T, m * K), "Corollary 1, T = Ω(mK) with constant 1 [L180]")
_K_SPEC_NOTE = ("K = Θ(T/m), the largest K allowed by T = Ω(mK) (remark after Corollary 2 "
                "[L238]), applied before solving "
                "for T: the derived T_ε must come out as O(ε⁻²) for the claimed communication")
CAP_C1_PRINTED = Min(1 / (sp.sqrt(m) * K ** R(3, 2)), K ** R(3, 4) / (m ** R(1, 4) * T ** R(1, 4)))
CAP_C2 = 1 / ((m * T) ** R(1, 4) * K ** R(5, 4))
CAP_C3 = 1 / ((m * T) ** R(1, 4) * K)
ETA_C12 = sp.sqrt(m) / sp.sqrt(K * T)
ETA_C3 = sp.sqrt(m) / (sp.sqrt(T) * K)


def _cor1(corrected: bool) -> Theorem:
    cap = CAP_C2 if corrected else CAP_C1_PRINTED
    base = build_thm1_opt1(corrected)
    conds = [*opt1_conditions(OPT1_SRC),
             *_cap_conditions(cap, "derived here from ψ1 of Theorem 1 (cf. Corollary 2 [L236])"
                              if corrected else "Corollary 1 [L180]"),
             T_OMEGA]
    return Theorem(
        id="sagda.cor1" + (".corrected" if corrected else ""), paper="sagda",
        title="Convergence rate of SAGDA (Corollary 1)"
              + (" (corrected: η_l ≤ 1/(m^{1/4}K^{5/4}T^{1/4}), Theorem 1-I corrected)"
                 if corrected else ""),
        source="Corollary 1 [L178–L182]",
        statement=("Let η_x = Θ(√m/√(KT)), η_y = Θ(√m/√(KT)), η_{x,l}, η_{y,l} ≤ "
                   "min{1/(m^{1/2}K^{3/2}), K^{3/4}/(m^{1/4}T^{1/4})} and T = Ω(mK): the rate of "
                   "SAGDA is O(1/√(mKT)); per-client sample complexity O(1/(mε⁴)), communication "
                   "complexity O(ε⁻²) [L180–L182].") if not corrected else
                  ("As Corollary 1 with η_{x,l}, η_{y,l} ≤ 1/(m^{1/4}K^{5/4}T^{1/4}), applied to "
                   "the corrected Theorem 1 Option I (a_2 with its M/m dependence)."),
        notation=N1, assumptions=base.assumptions, derived=base.derived, conditions=conds,
        bound_lhs=LHS, bound=base.bound,
        schedule=_schedule(c_x * ETA_C12, c_y * ETA_C12, cap),
        schedule_source="Corollary 1 [L180]: η_x = c_x√m/√(KT), η_y = c_y√m/√(KT), local steps "
                        "at their cap, η_g = η/η_l (Theorem 1 Option I; the corollary names no "
                        "option)",
        costs=COSTS_SAGDA,
        claimed={"communications": 1 / (m * K * epsilon**4),
                 "samples_per_client": 1 / (m * epsilon**4)},
        claimed_source="Corollary 1 (rate O(1/√(mKT)) ≤ ε² ⇔ T ≥ 1/(mKε⁴)) [L180] and the "
                       "remark after it [L182]",
        specializations=[Specialization(
            "K = T/m (K = Θ(T/m), largest K allowed by T = Ω(mK))", {K: T / m},
            {"communications": epsilon**-2, "samples_per_client": 1 / (m * epsilon**4)},
            "remark after Corollary 1 [L182], Table 1 [L46]", _K_SPEC_NOTE)],
        errata=[E_COR1_CAP, E_ETA_Y_TYPO, *base.errata],
        corrected_of="sagda.cor1" if corrected else None,
        horizon=T, accuracy=epsilon, regime=[*REGIME, sp.Le(m * K * epsilon**2, 1)],
        relations=RELATIONS,
        fixed_in_orders=FIXED, algorithms=ALG_SAGDA,
        notes=["regime m·K·ε² ≤ 1 is T_ε ≥ mK, the corollary's T = Ω(mK) at T = T_ε."])


def _cor2(corrected: bool) -> Theorem:
    base = build_thm2(corrected)
    conds = [*fsgda_conditions(FSGDA_SRC, with_m=False),
             *_cap_conditions(CAP_C2, "Corollary 2 [L236]"),
             Condition("T >= mK", T_OMEGA.rel, "Corollary 2, T = Ω(mK) with constant 1 [L236]")]
    return Theorem(
        id="sagda.cor2" + (".corrected" if corrected else ""), paper="sagda",
        title="FSGDA under full participation (Corollary 2)" + (" (corrected Theorem 2)"
                                                                  if corrected else ""),
        source="Corollary 2 [L234–L238]",
        statement=("With m = M, η_x = Θ(√m/√(KT)), η_y = Θ(√m/√(KT)), η_{x,l}, η_{y,l} ≤ "
                   "1/((mT)^{1/4}K^{5/4}) and T = Ω(mK), FSGDA converges at O(1/√(MKT)); with "
                   "K = O(T/M), per-client sample complexity O(1/(mε⁴)) and communication "
                   "complexity O(ε⁻²) [L236–L238].") + (
                      " Applied to the corrected Theorem 2 (ψ4 = 0 at m = M, so only L_f/10 "
                      "changes)." if corrected else ""),
        notation=NF, assumptions=base.assumptions, derived=fsgda_derived({M: m}),
        conditions=conds, bound_lhs=base.bound_lhs, bound=base.bound,
        schedule=_schedule(c_x * ETA_C12, c_y * ETA_C12, CAP_C2),
        schedule_source="Corollary 2 [L236]: η_x = c_x√m/√(KT), η_y = c_y√m/√(KT), local steps "
                        "at their cap 1/((mT)^{1/4}K^{5/4}), η_g = η/η_l",
        costs=COSTS_FSGDA,
        claimed={"communications": 1 / (m * K * epsilon**4),
                 "samples_per_client": 1 / (m * epsilon**4)},
        claimed_source="Corollary 2 (rate O(1/√(MKT)) ≤ ε² ⇔ T ≥ 1/(MKε⁴)) [L236] and the "
                       "remark after it [L238]",
        specializations=[Specialization(
            "K = T/m (K = O(T/M), L238)", {K: T / m},
            {"communications": epsilon**-2, "samples_per_client": 1 / (m * epsilon**4)},
            "remark after Corollary 2 [L238], Table 1 [L47]", _K_SPEC_NOTE)],
        errata=[E_ETA_Y_TYPO, *base.errata],
        corrected_of="sagda.cor2" if corrected else None,
        horizon=T, accuracy=epsilon, regime=[sp.Ge(L_f, mu), sp.Le(m * K * epsilon**2, 1)],
        relations=RELATIONS,
        fixed_in_orders=FIXED, algorithms=ALG_FSGDA,
        notes=["M = m (full participation) is substituted, so ψ4 = 0.",
               "regime m·K·ε² ≤ 1 is T_ε ≥ mK, the corollary's T = Ω(mK) at T = T_ε."])


def _cor3(corrected: bool) -> Theorem:
    base = build_thm2(corrected)
    conds = [*fsgda_conditions(FSGDA_SRC), *_cap_conditions(CAP_C3, "Corollary 3 [L244]")]
    return Theorem(
        id="sagda.cor3" + (".corrected" if corrected else ""), paper="sagda",
        title="FSGDA under partial participation (Corollary 3)" + (
            " (corrected Theorem 2)" if corrected else ""),
        source="Corollary 3 [L242–L246]",
        statement=("With η_x = Θ(√m/(√T K)), η_y = Θ(√m/(√T K)), η_{x,l}, η_{y,l} ≤ "
                   "1/((mT)^{1/4}K), FSGDA converges at O(1/√(mT)): linear speed-up in m only "
                   "[L244–L246]. Table 1 [L47] lists FSGDA (Cor. 2, 3) with communication "
                   "O(ε⁻²) and per-client samples O(1/(mε⁴)).") + (
                      " Applied to the corrected Theorem 2 (L_f/10, ψ4 doubled)."
                      if corrected else ""),
        notation=NF, assumptions=base.assumptions, derived=base.derived,
        conditions=conds, bound_lhs=base.bound_lhs, bound=base.bound,
        schedule=_schedule(c_x * ETA_C3, c_y * ETA_C3, CAP_C3),
        schedule_source="Corollary 3 [L244]: η_x = c_x√m/(√T K), η_y = c_y√m/(√T K), local "
                        "steps at their cap 1/((mT)^{1/4}K), η_g = η/η_l",
        costs=COSTS_FSGDA,
        claimed={"communications": 1 / (m * epsilon**4),
                 "samples_per_client": K / (m * epsilon**4)},
        claimed_source="Corollary 3 (rate O(1/√(mT)) ≤ ε² ⇔ T ≥ 1/(mε⁴); K samples per "
                       "round) [L244]",
        specializations=[
            Specialization("Table 1 row 'FSGDA (Cor. 2, 3)', K = 1", {K: sp.Integer(1)},
                           {"communications": epsilon**-2,
                            "samples_per_client": 1 / (m * epsilon**4)}, "Table 1 [L47]",
                           "Table 1 claims O(ε⁻²) rounds; the derivation gives 1/(mε⁴) for "
                           "every K"),
            Specialization("Table 1 row, K = T/m (Corollary 2's choice K = O(T/M))",
                           {K: T / m},
                           {"communications": epsilon**-2,
                            "samples_per_client": 1 / (m * epsilon**4)},
                           "Table 1 [L47], remark after Corollary 2 [L238]",
                           "growing K does not help under partial participation")],
        errata=[E_TABLE1_COR3, *base.errata],
        corrected_of="sagda.cor3" if corrected else None,
        horizon=T, accuracy=epsilon, regime=[*REGIME, sp.Le(m * epsilon**2, 1)],
        relations=RELATIONS,
        fixed_in_orders=FIXED, algorithms=ALG_FSGDA,
        notes=["No lower bound on T is stated; condition (8) needs (2L + L_f/5)η_xK < 1/20, "
               "i.e. T ≳ m (derived here)."])



cor1 = _cor1(False)
cor1c = _cor1(True)
cor2 = _cor2(False)
cor2c = _cor2(True)
cor3 = _cor3(False)
cor3c = _cor3(True)

THEOREMS = [cor1, cor1c, cor2, cor2c, cor3, cor3c]
for corollary in THEOREMS:
    corollary.accuracy_target = ACC  # E‖∇Φ‖² ≤ ε² (Definition 1 [L90]), as for the theorems
