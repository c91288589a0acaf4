"""ProxSkip-VIP — Zhang, Choudhury, Stich, Loizou, "Communication-Efficient Gradient
Descent-Ascent Methods for Distributed Variational Inequalities: Unified Analysis and Local
Updates" (ICLR 2024; arXiv:2306.05100).

Statements as printed. Every source cites the paper's own numbering first (Theorem 3.1,
Corollary 3.6, Lemma 3.8, Assumption 2.2, Algorithm 3 line 4, Appendix F.2, Table 2 …);
``[Lnnn]`` is a line of the text named in ``PAPER["text"]``, a secondary reference. Where an
erratum changes a constant or a condition, a second theorem ``<id>.corrected`` holds the
corrected statement and both list the erratum. "[derived]" marks a statement of ours, not the
paper's.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from ..minmax import Max, Min
from ..model import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INTEGER,
    UNIT,
    Condition,
    Erratum,
    Notation,
    Relation,
    Specialization,
    Term,
    Theorem,
)

PAPER = {
    "key": "proxskip",
    "title": "Communication-Efficient Gradient Descent-Ascent Methods for Distributed "
             "Variational Inequalities: Unified Analysis and Local Updates (ProxSkip-VIP)",
    "authors": "Siqi Zhang, Sayantan Choudhury, Sebastian U. Stich, Nicolas Loizou",
    "venue": "ICLR 2024",
    "arxiv": "2306.05100",
    "url": "https://arxiv.org/abs/2306.05100",
    "text": "arXiv v2 (2306.05100v2, the HTML rendering) as plain text",
}
THEORY_SECONDS = 1.8  # its theory page's seconds on a fresh run (a scheduling hint)

N = Notation("proxskip")
gamma = N.add("gamma", POSITIVE, "step size γ", r"\gamma",
              "Algorithm 1, line 2 [L124]")
p = N.add("p", UNIT, "communication (prox) probability p", "p",
          "Algorithm 1, line 3 [L125]")
q = N.add("q", UNIT, "SVRG reference-refresh probability q", "q",
          "Algorithm 3, line 4 [L458]")
mu = N.add("mu", POSITIVE, "quasi-strong monotonicity modulus μ", r"\mu",
           "Assumption 2.1 [L94]")
ell = N.add("ell", POSITIVE, "star-cocoercivity modulus ℓ", r"\ell",
            "Assumption 2.1 [L96]")
ell_hat = N.add("ell_hat", POSITIVE, "averaged star-cocoercivity ℓ̂ (Assumption 3.7/4.3)",
                r"\widehat\ell", "Assumption 3.7 [L192]")
L_g = N.add("L_g", POSITIVE, "expected cocoercivity L_g (Assumption 3.3)", "L_g",
            "Assumption 3.3 [L162]")
L = N.add("L", POSITIVE, "Lipschitz constant L of F", "L",
          "remark after Corollary 3.6 [L184]")
kappa = N.add("kappa", POSITIVE, "condition number κ = L/μ", r"\kappa",
              "remark after Corollary 3.6 [L184]")
A = N.add("A", NONNEGATIVE, "estimator constant A (Assumption 2.2)", "A",
          "Assumption 2.2 [L107]")
B = N.add("B", NONNEGATIVE, "estimator constant B (Assumption 2.2)", "B",
          "Assumption 2.2 [L107]")
C = N.add("C", NONNEGATIVE, "estimator constant C (Assumption 2.2)", "C",
          "Assumption 2.2 [L107]")
D_1 = N.add("D_1", NONNEGATIVE, "estimator noise D_1 (Assumption 2.2)", "D_1",
            "Assumption 2.2 [L107]")
D_2 = N.add("D_2", NONNEGATIVE, "estimator noise D_2 (Assumption 2.2)", "D_2",
            "Assumption 2.2 [L107]")
rho = N.add("rho", UNIT, "estimator contraction ρ ∈ (0, 1] (Assumption 2.2)", r"\rho",
            "Assumption 2.2 [L107]")
M = N.add("M", POSITIVE, "Lyapunov weight M (> B/ρ)", "M", "Theorem 3.1 [L140]")
sigma_star = N.add("sigma_star", NONNEGATIVE, "σ_*, with σ_*² = E‖g(x*) − F(x*)‖² "
                   "(variance at the solution)", r"\sigma_*",
                   "Lemma 3.4 [L168]")
T = N.add("T", POSITIVE_INTEGER, "number of iterations T", "T",
          "Theorem 3.1 [L142]")
V_0 = N.add("V_0", POSITIVE, "initial Lyapunov value V_0", "V_0",
            "Theorem 3.1 [L142]")
epsilon = N.add("epsilon", POSITIVE, "target accuracy ε for E[V_T] ≤ ε", r"\epsilon",
                "Corollary 3.2 [L148]")
tau = N.add("tau", POSITIVE, "contraction τ = min{γμ, p², ρ − B/M} (derived)", r"\tau",
            "Theorem 3.1 [L140]")

LYAPUNOV = "E[V_T], V_t = ‖x_t − x*‖² + (γ/p)²‖h_t − F(x*)‖² + Mγ²σ_t² (Theorem 3.1 [L140])"
COSTS = {"iterations": T, "communications": p * T}  # one prox (communication) w.p. p per step
REGIME = [sp.Ge(M, 2 * B / rho), sp.Ge(ell, mu), sp.Ge(L_g, mu), sp.Ge(ell_hat, mu), sp.Ge(A, mu / 2),
          sp.Ge(kappa, 1), sp.Ge(L, mu), sp.Le(epsilon, V_0)]  # [derived] µ ≤ ℓ ≤ L_g etc.
# [derived] every instance of the assumptions satisfies these (checked on user values):
# μ‖d‖² ≤ ⟨F(x) − F(x*), d⟩ (d = x − x*) and ‖F(x) − F(x*)‖² ≤ c⟨·⟩ give μ ≤ c
# (Cauchy–Schwarz) for c = ℓ, and for c = L_g and ℓ̂ by Jensen's inequality; μ-strong
# monotonicity and an L-Lipschitz F give μ ≤ L, so κ = L/μ ≥ 1
_QSM = "Assumption 2.1 [L88–L99]"
RELATIONS = [
    Relation(sp.Ge(ell, mu), "a μ-quasi-strongly monotone, ℓ-star-cocoercive F has μ ≤ ℓ "
             "[derived]", _QSM),
    Relation(sp.Ge(L_g, mu), "the expected cocoercivity L_g bounds ℓ (Jensen), so μ ≤ L_g "
             "[derived]", f"{_QSM}; Assumption 3.3 [L160–L162]"),
    Relation(sp.Ge(ell_hat, mu), "the averaged star-cocoercivity ℓ̂ bounds ℓ (Jensen), so "
             "μ ≤ ℓ̂ [derived]", f"{_QSM}; Assumption 3.7 [L190–L192]"),
    Relation(sp.Ge(L, mu), "an L-Lipschitz, μ-strongly monotone F has μ ≤ L [derived]",
             "remark after Corollary 3.6 [L184]"),
    Relation(sp.Ge(kappa, 1), "κ = L/μ ≥ 1 since μ ≤ L [derived]",
             "remark after Corollary 3.6 [L184]"),
]
SOME_M = "some M > B/ρ (Theorem 3.1 [L140]): any value satisfying the conditions will do"
FIXED = {V_0: sp.Integer(1)}  # the paper's orders write ln(1/ε): V_0 is a constant
ALGS_VIP = ["ProxSkip-VIP (Alg. 1)", "ProxSkip-VIP-FL (Alg. 2)"]

# -- errata, each with the place of the paper it concerns -----------------------------------------
E_ELL_KAPPA = Erratum(
    "ell-kappa-L", "remark after Corollary 3.6 [L184]", "ℓ = κL",
    "ℓ ≤ κL = L²/μ (equality e.g. for J = μI + sK)",
    "For L-Lipschitz μ-strongly monotone F the paper writes ℓ = κL; Section 2.2 [L101] only "
    "gives ℓ ≤ κL. The min-max orders use the worst case, so communications scale with κ (not "
    "√κ) there.")
E_COR35_FACTOR = Erratum(
    "cor3.5-eps-factor", "Corollary 3.5 [L174]", "γ ≤ με/(8σ_*²)", "γ ≤ με/(4σ_*²)",
    "Corollary 3.2 with D_1 = 2σ_*² (Lemma 3.4) gives με/(2D_1) = με/(4σ_*²); the printed 8 "
    "is conservative by a factor 2, not wrong.")
E_M_ZERO = Erratum(
    "cor3.2-M-zero", "Corollary 3.2 [L148]", "M = 2B/ρ",
    "M ≥ 2B/ρ and M > 0 (any M > 0 when B = 0)",
    "With B = 0 (SGDA, GDA) M = 2B/ρ = 0 violates M > B/ρ (Theorem 3.1 [L140]) and makes "
    "ρ − B/M = 0/0.")
E_GDA_STEP = Erratum(
    "cor3.6-step", "Corollary 3.6 [L182]", "γ = 1/(2ℓ)", "γ ≤ 1/ℓ",
    "For g = F, Assumption 2.2 holds with A = ℓ/2 (‖F(x) − F(x*)‖² ≤ ℓ⟨·⟩), so Theorem 3.1 "
    "allows γ ≤ min{1/μ, 1/ℓ} = 1/ℓ; Lemma 3.4's Young step loses a factor 2 [derived].")
E_COR39_BRANCH = Erratum(
    "cor3.9-branch", "Corollary 3.9 [L204]", "γ = min{1/μ, 1/(6ℓ̂)}",
    "γ = 1/(6ℓ̂) (needs ℓ̂ ≥ μ, true by Jensen)",
    "If the 1/μ branch were active, q = 2γμ = 2 > 1 is not a probability; the branch is "
    "vacuous since ℓ̂ ≥ ℓ ≥ μ.")
E_LEMMA38_SIGMA = Erratum(
    "lemma3.8-sigma", "Lemma 3.8 [L198]", "σ_t² = (1/n)Σ‖F_i(x_t) − F_i(x*)‖²",
    "σ_t² = (1/n)Σ‖F_i(w_t) − F_i(x*)‖² (reference point w_t, as in the proof of Lemma 3.8, "
    "Appendix E [L533–L537])",
    "The Lyapunov term Mγ²σ_t² of Corollary 3.9 / Theorem 4.4 must use the SVRG reference point "
    "w_t; the x_t version does not satisfy the second inequality of Assumption 2.2 as derived.")
E_F3_MU_N = Erratum(
    "propF3-mu-n", "Proposition F.3, Appendix F.4 [L721]",
    "F is μ/n-quasi-strongly monotone (Proposition F.3)",
    "F is μ-quasi-strongly monotone (as in Proposition F.2 [L691])",
    "Propositions F.3 and F.2 disagree on the modulus; the statement of Theorem 4.4 uses μ, as "
    "Proposition F.2 proves. No change to the statement.")
E_NO_SPEEDUP = Erratum(
    "sigma-sum", "Table 2, Appendix F.5 [L750]",
    "iterations compared with Local SGDA's κ²σ_*²/(μnε)",
    "σ_*² = Σ_i E‖g_i(z*) − f_i(z*)‖² is a sum over clients: no linear speed-up in n",
    "In the consensus formulation σ_*² grows with n; the iteration claim against Local SGDA "
    "is not supported for large n [derived]. No change to the statement.")

E_XT = Erratum(
    "x-for-xt", "Assumption 2.2 [L109]; proof of Theorem 3.1, Appendix F.1 [L601]",
    "⟨F(x) − F(x*), x − x*⟩ in Assumption 2.2",
    "⟨F(x_t) − F(x*), x_t − x*⟩", "The estimator assumption is stated at the iterate x_t; the "
    "text writes x (also in the proof of Theorem 3.1, Appendix F.1 [L601]). No change to the "
    "conditions or the bound.")
E_T_PASSES = Erratum(
    "loop-T-plus-1", "Algorithm 1, line 1 [L122–L123]", "for t = 0, 1, …, T",
    "for t = 0, 1, …, T − 1",
    "The algorithm loops T + 1 times while the theorem bounds V_T; the executor runs T "
    "iterations, as the bound needs.")

E_P1_H = Erratum(
    "p1-any-h", "Section 3, after Algorithm 1 [L119]", "p = 1 and h_t ≡ 0 recover Proximal SGDA",
    "p = 1 recovers Proximal SGDA for any h (with p = 1 the prox argument is x_t − γg_t)",
    "Setting h ≡ 0 is unnecessary and inconsistent with line 9 of Algorithm 1, which makes h "
    "nonzero; h has no effect on x when p = 1 [derived]. No change to the bound.")

# -- Theorem 3.1 -----------------------------------------------------------------------------
_tau31 = Min(gamma * mu, p**2, rho - B / M)
_thm31_conditions = [
    Condition("gamma <= 1/mu", sp.Le(gamma, 1 / mu), "Theorem 3.1 [L140]"),
    Condition("gamma <= 1/(2(A+MC))", sp.Le(gamma, 1 / (2 * (A + M * C))), "Theorem 3.1 [L140]"),
    Condition("M > B/rho", sp.Gt(M, B / rho), "Theorem 3.1 [L140]"),
]
thm31 = Theorem(
    id="proxskip.thm3.1", paper="proxskip", title="Convergence of ProxSkip-VIP",
    source="Theorem 3.1 [L138–L142]; proof in Appendix F.1 [L543–L625]",
    statement="Under Assumptions 2.1 and 2.2, with γ ≤ min{1/μ, 1/(2(A+MC))}, "
              "τ = min{γμ, p², ρ − B/M} and some M > B/ρ, the iterates of ProxSkip-VIP satisfy "
              "E[V_T] ≤ (1−τ)^T V_0 + γ²(D_1 + M D_2)/τ.",
    notation=N,
    assumptions=["Assumption 2.1 [L88–L99]: F μ-quasi-strongly monotone and ℓ-star-cocoercive; "
                 "R proper, lsc, convex", "Assumption 2.2 [L105–L109]: estimator constants "
                 "A, B, C, D_1, D_2 ≥ 0, ρ ∈ (0, 1]"],
    derived={tau: _tau31},
    conditions=_thm31_conditions,
    bound_lhs=LYAPUNOV,
    bound=[Term("contraction", (1 - tau) ** T * V_0, "Theorem 3.1 [L142]"),
           Term("neighborhood", gamma**2 * (D_1 + M * D_2) / tau, "Theorem 3.1 [L142]")],
    costs=COSTS, horizon=T, accuracy=epsilon, regime=REGIME, relations=RELATIONS,
    existential={"M": SOME_M}, fixed_in_orders=FIXED, algorithms=["ProxSkip-VIP (Alg. 1)"], errata=[E_XT, E_T_PASSES, E_P1_H],
    notes=["Star-cocoercivity (ℓ) is never used in the proof (Appendix F.1); only quasi-strong "
           "monotonicity and Assumption 2.2 [derived]."],
)

# -- Corollary 3.2 -----------------------------------------------------------------------------
_M32 = 2 * B / rho
_cor32_claim = Max((A + B * C / rho) / mu, 1 / rho, (D_1 + B / rho * D_2) / (mu**2 * epsilon))


def _cor32(corrected: bool) -> Theorem:
    Mx = M  # printed: M = 2B/ρ is derived; corrected: M is an input with M ≥ 2B/ρ
    conds = [
        Condition("gamma <= 1/mu", sp.Le(gamma, 1 / mu), "Corollary 3.2 [L148]"),
        Condition("gamma <= 1/(2(A+MC))", sp.Le(gamma, 1 / (2 * (A + Mx * C))),
                  "Corollary 3.2 [L148]"),
        Condition("gamma <= rho/(2mu)", sp.Le(gamma, rho / (2 * mu)), "Corollary 3.2 [L148]"),
        Condition("gamma <= mu*eps/(2(D_1+2B/rho D_2))",
                  sp.Le(gamma, mu * epsilon / (2 * (D_1 + Mx * D_2))), "Corollary 3.2 [L148]"),
        Condition("M > B/rho", sp.Gt(Mx, B / rho), "Theorem 3.1 [L140] (the setting of "
                  "Corollary 3.2)"),
    ]
    if corrected:
        conds.append(Condition("M >= 2B/rho", sp.Ge(M, 2 * B / rho), "Corollary 3.2 [L148] "
                               "(corrected)",
                               "ρ − B/M ≥ ρ/2 ≥ γμ, so τ = γμ"))
    sched = {gamma: Min(1 / mu, 1 / (2 * (A + Mx * C)), rho / (2 * mu),
                           mu * epsilon / (2 * (D_1 + Mx * D_2)))}
    derived = {p: sp.sqrt(gamma * mu)}
    claim = _cor32_claim
    if not corrected:
        derived = {M: _M32, p: sp.sqrt(gamma * mu)}
    else:  # the claimed order with M in place of 2B/ρ (Corollary 3.2's at M = 2B/ρ)
        claim = Max((A + M * C) / mu, 1 / rho, (D_1 + M * D_2) / (mu**2 * epsilon))
    return Theorem(
        id="proxskip.cor3.2" + (".corrected" if corrected else ""), paper="proxskip",
        title="Complexity of ProxSkip-VIP" + (" (corrected: M free when B = 0)" if corrected else ""),
        source="Corollary 3.2 [L146–L150]; proof in Appendix F.2 [L627–L655]",
        statement=("With the setting of Theorem 3.1, M = 2B/ρ, p = √(γμ) and γ ≤ min{1/μ, "
                   "1/(2(A+MC)), ρ/(2μ), με/(2(D_1 + 2B/ρ D_2))}, E[V_T] ≤ ε after "
                   "O(max{(A + BC/ρ)/μ, 1/ρ, (D_1 + B/ρ D_2)/(μ²ε)} ln(V_0/ε)) iterations and "
                   "O(√max{…} ln(V_0/ε)) prox calls.") if not corrected else
                  ("As Corollary 3.2 with M ≥ 2B/ρ, M > 0 (any M > 0 when B = 0) in place of "
                   "M = 2B/ρ; the neighborhood becomes γ(D_1 + M D_2)/μ."),
        notation=N, assumptions=thm31.assumptions, derived=derived, conditions=conds,
        bound_lhs=LYAPUNOV,
        bound=[Term("contraction", (1 - gamma * mu) ** T * V_0,
                    "proof of Corollary 3.2, Appendix F.2 [L637] (τ = γμ [L633])"),
               Term("neighborhood", gamma * (D_1 + Mx * D_2) / mu,
                    "proof of Corollary 3.2, Appendix F.2 [L637]")],
        schedule=sched, schedule_source="Corollary 3.2 [L148] (largest γ allowed)",
        costs=COSTS, claimed={"iterations": claim * sp.log(V_0 / epsilon),
                              "communications": sp.sqrt(claim) * sp.log(V_0 / epsilon)},
        claimed_source="Corollary 3.2 [L150]" + (" with M in place of 2B/ρ" if corrected else ""),
        errata=[E_M_ZERO], corrected_of="proxskip.cor3.2" if corrected else None,
        existential={"M": "some M ≥ 2B/ρ, M > 0 (Corollary 3.2 [L148], corrected): any value "
                          "satisfying the conditions will do"} if corrected else {},
        horizon=T, accuracy=epsilon, regime=REGIME,
        relations=RELATIONS, fixed_in_orders=FIXED, algorithms=ALGS_VIP)


# -- Corollary 3.5 / Theorem 4.2 (ProxSkip-SGDA, -FL) ---------------------------------------------
def _sgda(id_: str, title: str, source: str, statement: str, factor: int, claimed_source: str,
          algorithms: list[str], extra_errata: list[Erratum], corrected_of: str | None,
          specs: list[Specialization]) -> Theorem:
    cap = mu * epsilon / (factor * sigma_star**2)
    line = ("Corollary 3.5 [L174]" if id_.startswith("proxskip.cor3.5") else
            "Corollary 3.5 [L174] (the setting of Theorem 4.2, Appendix G [L786])")
    claim = Max(L_g / mu, sigma_star**2 / (mu**2 * epsilon))
    return Theorem(
        id=id_, paper="proxskip", title=title, source=source, statement=statement, notation=N,
        assumptions=["Assumption 2.1 [L88–L99]", "Assumption 3.3 [L160–L162]: L_g-expected "
                     "cocoercivity"] if id_.startswith("proxskip.cor") else
                    ["Assumption 4.1 [L230–L232]: each f_i μ-QSM around z*, L_g-expected "
                     "cocoercive"],
        derived={p: sp.sqrt(gamma * mu)},
        conditions=[
            Condition("gamma <= 1/(2L_g)", sp.Le(gamma, 1 / (2 * L_g)), line),
            Condition("gamma <= 1/(2mu)", sp.Le(gamma, 1 / (2 * mu)), line),
            Condition(f"gamma <= mu*eps/({factor}sigma_star^2)", sp.Le(gamma, cap), line),
        ],
        bound_lhs=LYAPUNOV,
        bound=[Term("contraction", (1 - gamma * mu) ** T * V_0,
                    "Theorem 3.1 [L142] with Lemma 3.4 [L168], [derived]: τ = γμ"),
               Term("neighborhood", 2 * gamma * sigma_star**2 / mu,
                    "Theorem 3.1 [L142] with Lemma 3.4 [L168], [derived]: γ²D_1/τ with "
                    "D_1 = 2σ_*², τ = γμ")],
        schedule={gamma: Min(1 / (2 * L_g), 1 / (2 * mu), cap)},
        schedule_source=line + " (largest γ allowed), p = √(γμ)",
        costs=COSTS,
        claimed={"iterations": claim * sp.log(1 / epsilon),
                 "communications": sp.sqrt(claim) * sp.log(1 / epsilon)},
        claimed_source=claimed_source, specializations=specs,
        errata=[E_COR35_FACTOR, *extra_errata], corrected_of=corrected_of,
        horizon=T, accuracy=epsilon, regime=REGIME,
        relations=RELATIONS, fixed_in_orders=FIXED, algorithms=algorithms)


_det = Specialization(
    "deterministic (σ_* = 0, L_g = ℓ)",
    {sigma_star: sp.Integer(0), L_g: ell},
    {"iterations": ell / mu * sp.log(1 / epsilon),
     "communications": sp.sqrt(ell / mu) * sp.log(1 / epsilon)},
    "Section 3.2 (ii) [L178]; Section 4, comparison with literature [L240]")
_minmax_fl = Specialization(
    "min-max, L-Lipschitz μ-strongly monotone, worst case ℓ = κL (Table 1/2)",
    {L_g: kappa**2 * mu},
    {"iterations": Max(kappa**2, sigma_star**2 / (mu**2 * epsilon)) * sp.log(1 / epsilon),
     "communications": sp.sqrt(Max(kappa**2, sigma_star**2 / (mu**2 * epsilon)))
     * sp.log(1 / epsilon)}, "Table 1 [L54]; Table 2, Appendix F.5 [L750]",
    "ℓ/μ = κ² here (L_g ≥ ℓ = κL = κ²μ in the worst case): communications grow like κ, "
    "not √κ; √κ holds only for minimisation (ℓ = L).")
_SGDA_STATEMENT = ("With Assumptions 2.1 and 3.3, γ ≤ min{1/(2L_g), 1/(2μ), με/(8σ_*²)} and "
                   "p = √(γμ), ProxSkip-SGDA reaches E[V_T] ≤ ε with O(max{L_g/μ, σ_*²/(μ²ε)} "
                   "ln(1/ε)) iterations and O(√max{…} ln(1/ε)) prox calls.")
cor35 = _sgda(
    factor=8,
    id_="proxskip.cor3.5", title="Convergence of ProxSkip-SGDA",
    source="Corollary 3.5 [L172–L174]", statement=_SGDA_STATEMENT,
    claimed_source="Corollary 3.5 [L174]", algorithms=["ProxSkip-SGDA (Alg. 1, g = stochastic)"],
    extra_errata=[], corrected_of=None, specs=[_det])
cor35c = _sgda(
    factor=4,
    id_="proxskip.cor3.5.corrected",
    title="Convergence of ProxSkip-SGDA (corrected: με/(4σ_*²))",
    source="Corollary 3.5 [L172–L174]",
    statement=_SGDA_STATEMENT.replace("8σ", "4σ") + " (με/(4σ_*²) from Corollary 3.2 with "
    "D_1 = 2σ_*²)", claimed_source="Corollary 3.5 [L174]",
    algorithms=["ProxSkip-SGDA (Alg. 1, g = stochastic)"], extra_errata=[],
    corrected_of="proxskip.cor3.5", specs=[_det])
_THM42_STATEMENT = ("With Assumption 4.1, ProxSkip-VIP-FL (Algorithm 2) achieves E[V_T] ≤ ε with "
                    "iteration complexity O(max{L_g/μ, σ_*²/(μ²ε)} ln(1/ε)) and communication "
                    "complexity O(√max{L_g/μ, σ_*²/(μ²ε)} ln(1/ε)); step size and p follow "
                    "Corollary 3.5 (Appendix G [L786]).")
thm42 = _sgda(
    factor=8,
    id_="proxskip.thm4.2", title="Convergence of ProxSkip-SGDA-FL",
    source="Theorem 4.2 [L236–L238]; Section 4, comparison with literature [L240–L242]",
    statement=_THM42_STATEMENT, claimed_source="Theorem 4.2 [L238]",
    algorithms=["ProxSkip-SGDA-FL (Alg. 2)", "ProxSkip-GDA-FL (Alg. 2, g_i = f_i)"],
    extra_errata=[E_ELL_KAPPA, E_NO_SPEEDUP], corrected_of=None, specs=[_det, _minmax_fl])
thm42c = _sgda(
    factor=4,
    id_="proxskip.thm4.2.corrected",
    title="Convergence of ProxSkip-SGDA-FL (corrected: με/(4σ_*²))",
    source="Theorem 4.2 [L236–L238]; Section 4, comparison with literature [L240–L242]",
    statement=_THM42_STATEMENT + " Corrected: γ ≤ με/(4σ_*²).",
    claimed_source="Theorem 4.2 [L238]", algorithms=["ProxSkip-SGDA-FL (Alg. 2)"],
    extra_errata=[E_ELL_KAPPA, E_NO_SPEEDUP], corrected_of="proxskip.thm4.2",
    specs=[_det, _minmax_fl])


# -- Corollary 3.6 (ProxSkip-GDA) ---------------------------------------------------------------
def _cor36(corrected: bool) -> Theorem:
    cap = 1 / ell if corrected else 1 / (2 * ell)
    return Theorem(
        id="proxskip.cor3.6" + (".corrected" if corrected else ""), paper="proxskip",
        title="Convergence of ProxSkip-GDA" + (" (corrected: γ ≤ 1/ℓ, ℓ ≤ κL)" if corrected else ""),
        source="Corollary 3.6 [L180–L182] and the remark after it [L184]",
        statement=("With the setting of Corollary 3.5, g_t = F(x_t) and γ = 1/(2ℓ), ProxSkip-GDA "
                   "satisfies E[V_T] ≤ (1 − min{γμ, p²})^T V_0: O(ℓ/μ ln(1/ε)) iterations and "
                   "O(√(ℓ/μ) ln(1/ε)) prox calls; for L-Lipschitz μ-strongly monotone F, ℓ = κL "
                   "gives O(κ² ln(1/ε)) and O(κ ln(1/ε)).") if not corrected else
                  ("As Corollary 3.6 with any γ ≤ 1/ℓ (Theorem 3.1 with A = ℓ/2) and ℓ ≤ κL in "
                   "place of ℓ = κL: the min-max orders are worst-case (attained when ℓ = L²/μ)."),
        notation=N,
        assumptions=["Assumption 2.1 [L88–L99]", "deterministic estimator g = F (L_g = ℓ, "
                     "Section 3.2 (ii) [L178])"],
        conditions=[Condition("gamma <= 1/mu", sp.Le(gamma, 1 / mu),
                              "Theorem 3.1 [L140] (the setting of Corollary 3.6)"),
                    Condition("gamma <= 1/ell" if corrected else "gamma <= 1/(2ell)",
                              sp.Le(gamma, cap), "Corollary 3.6 [L182]" + (
                                  " corrected, [derived] A = ℓ/2" if corrected else
                                  " (γ = 1/(2ℓ))"))],
        bound_lhs=LYAPUNOV,
        bound=[Term("contraction", (1 - Min(gamma * mu, p**2)) ** T * V_0,
                    "Corollary 3.6 [L182]")],
        schedule={gamma: cap, p: sp.sqrt(gamma * mu)},
        schedule_source=("Corollary 3.6 [L182] corrected (γ = 1/ℓ)" if corrected else
                         "Corollary 3.6 [L182] (γ = 1/(2ℓ))") +
                        "; p = √(γμ) (the setting of Corollary 3.5 [L174])",
        costs=COSTS,
        claimed={"iterations": ell / mu * sp.log(1 / epsilon),
                 "communications": sp.sqrt(ell / mu) * sp.log(1 / epsilon)},
        claimed_source="Corollary 3.6 [L182]",
        specializations=[
            Specialization("min-max, L-Lipschitz μ-strongly monotone, ℓ = κL = κ²μ (κ = L/μ)",
                           {ell: kappa**2 * mu}, {"iterations": kappa**2 * sp.log(1 / epsilon),
                                              "communications": kappa * sp.log(1 / epsilon)},
                           "remark after Corollary 3.6 [L184]",
                           "with L = κμ: ℓ/μ = κ², so communications are O(κ ln 1/ε), "
                           "not O(√κ ln 1/ε); p = 1/(√2 κ)" + (
                               " — worst case: ℓ ≤ κL in general" if corrected else "")),
            Specialization("minimisation, ℓ = L = κμ", {ell: kappa * mu},
                           {"iterations": kappa * sp.log(1 / epsilon),
                            "communications": sp.sqrt(kappa) * sp.log(1 / epsilon)},
                           "remark after Corollary 3.6 [L184]",
                           "√κ communications only here; p = 1/√(2κ)"),
        ],
        errata=[E_ELL_KAPPA, E_GDA_STEP], corrected_of="proxskip.cor3.6" if corrected else None,
        horizon=T, accuracy=epsilon, regime=REGIME, relations=RELATIONS, fixed_in_orders=FIXED,
        algorithms=["ProxSkip-GDA (Alg. 1, g = F)", "ProxSkip-GDA-FL (Alg. 2)"])


# -- Corollary 3.9 / Theorem 4.4 (ProxSkip-L-SVRGDA, -FL) ----------------------------------------
def _svrg(id_: str, title: str, source: str, statement: str, claimed_source: str,
          corrected: bool, algorithms: list[str], specs: list[Specialization],
          errata: list[Erratum]) -> Theorem:
    setting = "Corollary 3.9" if id_.startswith("proxskip.cor") else "Theorem 4.4"
    g = 1 / (6 * ell_hat) if corrected else Min(1 / mu, 1 / (6 * ell_hat))
    conds = [
        Condition("gamma <= 1/mu", sp.Le(gamma, 1 / mu),
                  f"Theorem 3.1 [L140] (the setting of {setting})"),
        Condition("gamma <= 1/(2(A+MC))", sp.Le(gamma, 1 / (2 * (ell_hat + M * q * ell_hat / 2))),
                  "Theorem 3.1 [L140] with Lemma 3.8 [L198]: A = ℓ̂, C = qℓ̂/2"),
        Condition("M > B/rho", sp.Gt(M, 2 / q),
                  "Theorem 3.1 [L140] with Lemma 3.8 [L198]: B = 2, ρ = q"),
    ]
    if corrected:
        conds.append(Condition("q <= 1", sp.Le(q, 1), "Algorithm 3, line 4 [L458] (q is a "
                               "probability)",
                               "fails when ℓ̂ < μ, where the printed γ = 1/μ gives q = 2"))
    return Theorem(
        id=id_, paper="proxskip", title=title, source=source, statement=statement, notation=N,
        assumptions=["Assumption 2.1 [L88–L99]", "Assumption 3.7 [L190–L192]"]
        if id_.startswith("proxskip.cor") else ["Assumption 4.3 [L248–L250]"],
        derived={gamma: g, q: 2 * gamma * mu, M: 4 / q, p: sp.sqrt(gamma * mu),
                 tau: Min(gamma * mu, p**2, q - 2 / M)},
        conditions=conds,
        bound_lhs=LYAPUNOV.replace("σ_t²", "σ_t² (σ_t at w_t, proof of Lemma 3.8 [L533])"),
        bound=[Term("contraction", (1 - tau) ** T * V_0,
                    "Theorem 3.1 [L142] with Lemma 3.8 [L198], D_1 = D_2 = 0 [derived]: "
                    "τ = γμ")],
        schedule={}, costs=COSTS,
        claimed={"iterations": ell_hat / mu * sp.log(1 / epsilon),
                 "communications": sp.sqrt(ell_hat / mu) * sp.log(1 / epsilon)},
        claimed_source=claimed_source, specializations=specs, errata=errata,
        corrected_of=id_.removesuffix(".corrected") if corrected else None,
        horizon=T, accuracy=epsilon, regime=REGIME,
        relations=RELATIONS, fixed_in_orders=FIXED, algorithms=algorithms)


_svrg_minmax = Specialization(
    "min-max, L-Lipschitz μ-strongly monotone, ℓ̂ = κL (Table 1/2)",
    {ell_hat: kappa**2 * mu},
    {"iterations": kappa**2 * sp.log(1 / epsilon), "communications": kappa * sp.log(1 / epsilon)},
    "Table 1 [L54]; Table 2, footnote 3 [L762]",
    "ℓ̂/μ = κ²: O(κ ln 1/ε) communications, as Table 1 states; not √κ")
_svrg_min = Specialization(
    "minimisation, ℓ̂ = L = κμ", {ell_hat: kappa * mu},
    {"iterations": kappa * sp.log(1 / epsilon), "communications": sp.sqrt(kappa) * sp.log(1 / epsilon)},
    "remark after Corollary 3.9 [L206]; remark after Theorem 4.4 [L258]",
    "recovers Malinovsky et al. (2022)")
_COR39 = ("With Assumptions 2.1 and 3.7, q = 2γμ, M = 4/q, p = √(γμ) and γ = min{1/μ, 1/(6ℓ̂)}, "
          "ProxSkip-L-SVRGDA reaches E[V_T] ≤ ε with O(ℓ̂/μ ln(1/ε)) iterations and "
          "O(√(ℓ̂/μ) ln(1/ε)) prox calls.")
_THM44 = ("With Assumption 4.3, ProxSkip-L-SVRGDA-FL achieves E[V_T] ≤ ε with iteration complexity "
          "O(ℓ̂/μ ln(1/ε)) and communication complexity O(√(ℓ̂/μ) ln(1/ε)); parameters follow "
          "Corollary 3.9 (Appendix G [L786]).")
_COR39_SOURCE = "Corollary 3.9 [L202–L204] and the remark after it [L206]"
_THM44_SOURCE = "Theorem 4.4 [L254–L256] and the remark after it [L258]"
cor39 = _svrg("proxskip.cor3.9", "Complexities of ProxSkip-L-SVRGDA", _COR39_SOURCE, _COR39,
              "Corollary 3.9 [L204]", False, ["ProxSkip-L-SVRGDA (Alg. 3)"], [_svrg_min],
              [E_COR39_BRANCH, E_LEMMA38_SIGMA])
cor39c = _svrg("proxskip.cor3.9.corrected", "Complexities of ProxSkip-L-SVRGDA (corrected)",
               _COR39_SOURCE, _COR39.replace("min{1/μ, 1/(6ℓ̂)}", "1/(6ℓ̂)") +
               " σ_t² is taken at the reference point w_t.", "Corollary 3.9 [L204]", True,
               ["ProxSkip-L-SVRGDA (Alg. 3)"], [_svrg_min], [E_COR39_BRANCH, E_LEMMA38_SIGMA])
thm44 = _svrg("proxskip.thm4.4", "Convergence of ProxSkip-L-SVRGDA-FL", _THM44_SOURCE, _THM44,
              "Theorem 4.4 [L256]", False, ["ProxSkip-L-SVRGDA-FL (Alg. 4)"],
              [_svrg_minmax, _svrg_min], [E_COR39_BRANCH, E_LEMMA38_SIGMA, E_F3_MU_N, E_ELL_KAPPA])
thm44c = _svrg("proxskip.thm4.4.corrected", "Convergence of ProxSkip-L-SVRGDA-FL (corrected)",
               _THM44_SOURCE, _THM44 + " γ = 1/(6ℓ̂); σ_t² at the reference points w_{i,t}.",
               "Theorem 4.4 [L256]", True, ["ProxSkip-L-SVRGDA-FL (Alg. 4)"],
               [_svrg_minmax, _svrg_min], [E_COR39_BRANCH, E_LEMMA38_SIGMA, E_F3_MU_N, E_ELL_KAPPA])

cor32 = _cor32(False)
cor32c = _cor32(True)
cor36 = _cor36(False)
cor36c = _cor36(True)

THEOREMS = [thm31, cor32, cor32c, cor35, cor35c, cor36, cor36c, cor39, cor39c, thm42, thm42c,
            thm44, thm44c]


# ================================================================================================
# Additions for the numeric layer. Not registered: THEOREMS above is unchanged, and no statement
# above changes. (1) Parameter schedules that ``complexity.schedule_values`` evaluates where a
# corollary gives its parameters as derived quantities (Corollary 3.9) or as functions of a given
# γ. (2) The estimator Lemmas 3.4 and 3.8 as data: Assumption 2.2's two inequalities [L109] with
# the lemma's constants A, B, C, D_1, D_2, ρ as derived quantities, so a claim evaluates the
# right-hand sides (and Theorem 3.1's inputs) from the encoding instead of retyping them.
# ================================================================================================

inner = N.add("inner", NONNEGATIVE, "⟨F(x) − F(x*), x − x*⟩ at the point x",
              r"\langle F(x)-F(x^*), x-x^*\rangle", "Assumption 2.2 [L109]")
sigma_t = N.add("sigma_t", NONNEGATIVE, "σ_t of Assumption 2.2 (L-SVRGDA: at the reference "
                "point w_t, proof of Lemma 3.8 [L533])", r"\sigma_t", "Assumption 2.2 [L107]")


def _schedule(thm: Theorem, entries: dict[sp.Symbol, sp.Expr], source: str,
              given: tuple[sp.Symbol, ...] = ()) -> Theorem:
    """``thm`` with ``entries`` as its schedule; the symbols in ``given`` are dropped from its
    derived quantities, so they stay inputs (e.g. a step size γ chosen by the user)."""
    derived = {s: v for s, v in thm.derived.items() if s not in given}
    return replace(thm, derived=derived, schedule=dict(entries), schedule_source=source)


#: Corollary 3.9 [L204], corrected branch: γ = 1/(6ℓ̂).
cor39_step = _schedule(cor39c, {gamma: gamma},
                       "Corollary 3.9 [L204]: γ = 1/(6ℓ̂) (the branch 1/μ is vacuous, erratum "
                       "cor3.9-branch)")
#: Corollary 3.9 [L204] at a given γ: q = 2γμ, p = √(γμ).
cor39_given_step = _schedule(cor39c, {q: q, p: p},
                             "Corollary 3.9 [L204]: q = 2γμ, p = √(γμ) at a given γ",
                             given=(gamma,))
#: The setting of Corollary 3.5 [L174] at a given γ: p = √(γμ).
cor35_given_step = _schedule(cor35, {p: p}, "Corollary 3.5 [L174]: p = √(γμ) at a given γ")

# bounds E‖g_t − F(x*)‖² and E[σ²_{t+1}] (Assumption 2.2 [L109])
ESTIMATOR_FIRST = (2 * A * inner, B * sigma_t**2 + D_1)
ESTIMATOR_SECOND = (2 * C * inner, (1 - rho) * sigma_t**2 + D_2)


def _lemma(id_: str, title: str, source: str, statement: str,
           constants: dict[sp.Symbol, sp.Expr], second: bool = False) -> Theorem:
    """An estimator lemma: Assumption 2.2's first (or second) inequality with the lemma's
    constants; the bound's terms are the right-hand side, ``derived`` the constants."""
    lhs, (coco, rest) = (("E[σ_{t+1}²]", ESTIMATOR_SECOND) if second else
                         ("E‖g_t − F(x*)‖²", ESTIMATOR_FIRST))
    return Theorem(id=id_, paper="proxskip", title=title, source=source, statement=statement,
                   notation=N, assumptions=["Assumption 2.2 [L105–L109]"], derived=constants,
                   bound_lhs=lhs, bound=[Term("cocoercivity", coco, source),
                                         Term("variance", rest, source)])


_L34 = {A: L_g, B: sp.Integer(0), C: sp.Integer(0), D_1: 2 * sigma_star**2,
        D_2: sp.Integer(0), rho: sp.Integer(1)}
_L38 = {A: ell_hat, B: sp.Integer(2), C: q * ell_hat / 2, D_1: sp.Integer(0),
        D_2: sp.Integer(0), rho: q}
lemma34 = _lemma("proxskip.lemma3.4", "SGDA satisfies Assumption 2.2",
                 "Lemma 3.4 [L166–L168]; proof in Appendix E [L515–L521]",
                 "With Assumptions 2.1 and 3.3, g_t satisfies Assumption 2.2 with A = L_g, "
                 "D_1 = 2σ_*², ρ = 1 and B = C = D_2 = σ_t² ≡ 0.", _L34)
lemma38 = _lemma("proxskip.lemma3.8", "L-SVRGDA satisfies Assumption 2.2 (σ_t at w_t)",
                 "Lemma 3.8 [L196–L198]; proof in Appendix E [L523–L539]",
                 "With Assumptions 2.1 and 3.7, the L-SVRGDA estimator satisfies Assumption 2.2 "
                 "with A = ℓ̂, B = 2, C = qℓ̂/2, D_1 = D_2 = 0, ρ = q and σ_t² = "
                 "(1/n)Σ_i‖F_i(w_t) − F_i(x*)‖² (erratum lemma3.8-sigma: at the reference "
                 "point, not at x_t).", _L38)
lemma38_refresh = _lemma("proxskip.lemma3.8.second", "L-SVRGDA: Assumption 2.2's second "
                         "inequality (σ_t at w_t)",
                         "Lemma 3.8 [L198]; proof in Appendix E [L533–L539]", lemma38.statement,
                         _L38, second=True)
LEMMAS = [lemma34, lemma38, lemma38_refresh]
