"""Fed-Norm-SGDA / Fed-Norm-SGDA+ — Sharma, Panda, Joshi, "Federated Minimax Optimization with
Client Heterogeneity" (TMLR 2023; arXiv:2302.04249).

Statements as printed. Every source cites the paper's own numbering first (Theorem 1, eq. (4),
Lemma B.3, Appendix C.2 …); ``[Lnnn]`` is a line of the text named in ``PAPER["text"]``, a
secondary reference. The appendix restates Theorem 1 in Appendix B.2 (with its general-step-size
bound) and Theorem 2 in Appendix C.2, where it is numbered "Theorem 3"; both restatements are
what is encoded. Where an erratum changes a constant, condition or term, ``<id>.corrected`` holds
the corrected statement; both list the erratum.

Heterogeneous clients. Client i runs τ_i local steps with coefficient vector a_i (a ≡ 1 for SGDA)
and the server weights w_i. The paper's bounds and conditions see these vectors only through scalar
summaries, so those summaries are the inputs here: the paper's own constants A_w, B_w, C_w, D (=
M_{a_{-1}}), E_w, F_w (Theorem 1 [L167], Theorem 2 [L235], Theorem 3 in Appendix C.2 [L1163]),
τ_eff = Σ p_i‖a_i‖₁ and τ̄ = (1/n)Σ τ_i, plus the two maxima the step-size conditions need and the
paper leaves unnamed: ``a_l1_max`` = max_i ‖a_i‖₁ (τ_max for SGDA; Lemmas B.4 and C.2) and
``w_a_max`` = max_{i,k} w_i a_i^(k)/‖a_i‖₁ (Lemmas B.3 and B.5). Two further maxima are derived,
not asked for: max_i w_i = E_w/n and max_i w_i‖a_i‖₂²/‖a_i‖₁² = B_w/(nτ_eff). The summaries cannot
be derived from fewer scalars (they are functionals of the vectors); the corollaries (p_i = 1/n,
τ_i = τ, a ≡ 1) derive all of them from τ. κ = L_f/μ and L_Φ (Lemma B.1) are derived.

Accuracy: Definition 1 [L92] and Corollaries 1.2 and 2.2 [L199, L257] ask for E‖∇Φ(x)‖ ≤ ε
while every bound is on the mean squared norm, so the complexity target is ε²
(``accuracy_target``). The bounds are O(·) statements: absolute constants are hidden and encoded
as 1. The factors (n−P)/(n−1) and (P−1)/(n−1) are kept as printed: they are 0/0 for a single
client (n = 1), so the theorems need n ≥ 2 (our reading; a condition says so).
"""

from __future__ import annotations

import sympy as sp

from ..minmax import Max
from ..model import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INTEGER,
    Condition,
    Domain,
    Erratum,
    Notation,
    Relation,
    Specialization,
    Term,
    Theorem,
)

PAPER = {
    "key": "fednorm",
    "title": "Federated Minimax Optimization with Client Heterogeneity (Fed-Norm-SGDA)",
    "authors": "Pranay Sharma, Rohan Panda, Gauri Joshi",
    "venue": "TMLR",
    "arxiv": "2302.04249",
    "url": "https://arxiv.org/abs/2302.04249",
    "text": "the TMLR version (OpenReview NnUmg1chLL) as plain text converted from the PDF",
}
THEORY_SECONDS = 21.6  # its theory page's seconds on a fresh run (a scheduling hint)

AT_LEAST_ONE = Domain("at least 1", 1.0, lo_open=False)


N = Notation("fednorm")
L_f = N.add("L_f", POSITIVE, "smoothness constant L_f of each f_i (Assumption 1)", "L_f",
            "Assumption 1 [L100]")
mu = N.add("mu", POSITIVE, "strong concavity (or PL) modulus μ in y (Assumption 5/6)", r"\mu",
           "Assumption 5 [L159]")
n = N.add("n", POSITIVE_INTEGER, "number of clients n", "n", "eq. (1) [L52]")
P = N.add("P", POSITIVE_INTEGER, "clients sampled per round P = |C^(t)| (WOR)", "P",
          "Section 5 [L155]")
T = N.add("T", POSITIVE_INTEGER, "number of communication rounds T", "T", "Definition 3 [L96]")
tau = N.add("tau", POSITIVE_INTEGER, "local steps τ of every client (corollaries)", r"\tau",
            "Corollary 1.2 [L199]")
S = N.add("S", POSITIVE_INTEGER, "snapshot period S of Fed-Norm-SGDA+", "S",
          "Algorithm 1, lines 4–6; Section 5.2 [L143, L235]")
sigma_L = N.add("sigma_L", NONNEGATIVE, "local noise σ_L (Assumption 3)", r"\sigma_L",
                "Assumption 3 [L106]")
beta_L = N.add("beta_L", NONNEGATIVE, "multiplicative local noise β_L (Assumption 3)", r"\beta_L",
               "Assumption 3 [L106]")
sigma_G = N.add("sigma_G", NONNEGATIVE, "heterogeneity σ_G (Assumption 4)", r"\sigma_G",
                "Assumption 4 [L109]")
beta_G = N.add("beta_G", AT_LEAST_ONE, "heterogeneity β_G ≥ 1 (Assumption 4)", r"\beta_G",
               "Assumption 4 [L109]")
G_x = N.add("G_x", POSITIVE, "Lipschitz constant G_x of f in x (Assumption 8)", "G_x",
            "Assumption 8 [L223]")
R = N.add("R", NONNEGATIVE, "bound R on ‖y^(t)‖² (Theorem 2)", "R",
          "Theorem 3, Appendix C.2 [L1155]")
eta_cx = N.add("eta_cx", POSITIVE, "client learning rate η^c_x", r"\eta^c_x", "Section 4.1 [L131]")
eta_cy = N.add("eta_cy", POSITIVE, "client learning rate η^c_y", r"\eta^c_y", "Section 4.1 [L131]")
gamma_sx = N.add("gamma_sx", POSITIVE, "server learning rate γ^s_x", r"\gamma^s_x",
                 "Section 4.1 [L131]")
gamma_sy = N.add("gamma_sy", POSITIVE, "server learning rate γ^s_y", r"\gamma^s_y",
                 "Section 4.1 [L131]")
tau_eff = N.add("tau_eff", POSITIVE, "τ_eff = Σ_i p_i‖a_i‖₁ (Σ p_i τ_i for SGDA)", r"\tau_{eff}",
                "Theorem 1 [L167]")
tau_bar = N.add("tau_bar", POSITIVE, "τ̄ = (1/n) Σ_i τ_i", r"\bar\tau", "Theorem 1 [L167]")
A_w = N.add("A_w", POSITIVE, "A_w = nτ_eff Σ_i w_i²‖a_i‖₂²/‖a_i‖₁²", "A_w", "Theorem 1 [L167]")
B_w = N.add("B_w", POSITIVE, "B_w = nτ_eff max_i w_i‖a_i‖₂²/‖a_i‖₁²", "B_w", "Theorem 1 [L167]")
C_w = N.add("C_w", NONNEGATIVE, "C_w = Σ_i w_i‖a_{i,−1}‖₂²", "C_w", "Theorem 1 [L167]")
D = N.add("D", NONNEGATIVE, "D = M_{a_{-1}} = max_i(β_L²‖a_{i,−1}‖₂² + ‖a_{i,−1}‖₁²)", "D",
          "Theorem 1 [L167]")
E_w = N.add("E_w", AT_LEAST_ONE, "E_w = n max_i w_i", "E_w", "Theorem 1 [L167]")
F_w = N.add("F_w", NONNEGATIVE, "F_w = n(n−P)/(P(n−1)) Σ_i w_i²", "F_w", "Theorem 2 [L235]")
a_l1_max = N.add("a_l1_max", POSITIVE, "max_i ‖a_i‖₁ (τ_max for SGDA)", r"\max_i\|a_i\|_1",
                 "Lemma B.4 [L634]")
w_a_max = N.add("w_a_max", POSITIVE, "max_{i,k} w_i a_i^(k)(τ_i)/‖a_i‖₁", r"\max w a/\|a\|_1",
                "Lemma B.3 [L630]")
a_r2_max = N.add("a_r2_max", POSITIVE, "max_i ‖a_i‖₂²/‖a_i‖₁² (unweighted, NC-PL condition)",
                 r"\max\|a\|_2^2/\|a\|_1^2", "Appendix B.5 [L1103]")
Delta_Phi = N.add("Delta_Phi", POSITIVE, "Δ_Φ̃ = Φ̃(x^(0)) − min_x Φ̃(x)", r"\Delta_{\tilde\Phi}",
                  "Theorem 1 [L167]")
Delta_bar_Phi = N.add("Delta_bar_Phi", POSITIVE, "Δ̄_Φ̃ = Φ̃_{1/2L_f}(x_0) − min_x Φ̃_{1/2L_f}(x)",
                      r"\bar\Delta_{\tilde\Phi}", "Theorem 2 [L235]")
chi2_pw = N.add("chi2_pw", NONNEGATIVE, "χ²_{p‖w} = Σ_i (p_i − w_i)²/w_i", r"\chi^2_{p\|w}",
                "Corollary 1.1 [L177]")
ydiff_sq = N.add("ydiff_sq", NONNEGATIVE, "(1/T) Σ_t ‖y*(x^(t)) − ỹ*(x^(t))‖²", "",
                 "Corollary 1.1, eq. (5) [L175]")
xdiff_sq = N.add("xdiff_sq", NONNEGATIVE, "(1/T) Σ_t ‖x̃^(t) − x̄^(t)‖² (Moreau proximal points)",
                 "", "Corollary 2.1 [L241]")
epsilon = N.add("epsilon", POSITIVE, "target accuracy ε for E‖∇Φ(x)‖ ≤ ε (Definition 1)",
                r"\epsilon", "Definition 1 [L92]")
# derived (declared so `show` can list them)
kappa = N.add("kappa", POSITIVE, "condition number κ = L_f/μ (derived)", r"\kappa",
              "Theorem 1 [L167]")
L_Phi = N.add("L_Phi", POSITIVE, "smoothness of Φ̃ (Lemma B.1, derived)", r"L_\Phi",
              "Lemma B.1 [L628]")
w_max = N.add("w_max", POSITIVE, "max_i w_i = E_w/n (derived)", r"\max_i w_i", "Theorem 1 [L167]")
wr2_max = N.add("wr2_max", POSITIVE, "max_i w_i‖a_i‖₂²/‖a_i‖₁² = B_w/(nτ_eff) (derived)", "",
                "Theorem 1 [L167]")

PP = (n - P) / (n - 1)  # undefined (0/0) for n = 1, as printed
PM1 = (P - 1) / (n - 1)
KAPPA = L_f / mu

UNIFORM = {  # p_i = w_i = 1/n, τ_i = τ, a ≡ 1 (Corollaries 1.2, 2.2; App. C.2 [L1293])
    tau_eff: tau, tau_bar: tau, A_w: sp.Integer(1), B_w: sp.Integer(1), C_w: tau - 1,
    D: (tau - 1) * (tau - 1 + beta_L**2), E_w: sp.Integer(1), F_w: PP / P, a_l1_max: tau,
    w_a_max: 1 / (n * tau), a_r2_max: 1 / tau,
}
COSTS = {"iterations": T, "communications": T, "samples_per_client": tau_bar * T}
REGIME = [sp.Le(P, n), sp.Ge(n, 2), sp.Ge(kappa, 1), sp.Le(epsilon, 1), sp.Ge(tau_bar, 1), sp.Ge(tau_eff, 1),
          sp.Ge(a_l1_max, tau_bar), sp.Le(w_a_max, 1), sp.Ge(beta_G, 1), sp.Ge(E_w, 1)]
RELATIONS = [  # every instance of the assumptions satisfies them (checked on user values)
    Relation(sp.Le(mu, L_f), "an L_f-smooth f(x, ·) that is μ-strongly concave (or μ-PL) "
             "has μ ≤ L_f", "Assumptions 1, 5/6 [L100, L159]"),
    Relation(sp.Le(P, n), "the P clients of a round are sampled without replacement "
             "among the n clients", "Appendix B, client sampling [L616]"),
]
ALG = "Fed-Norm-SGDA (Alg. 1)"
ALG_PLUS = "Fed-Norm-SGDA+ (Alg. 1)"
SQ = "min_t E‖∇Φ̃(x^(t))‖² ≤ (1/T) Σ_t E‖∇Φ̃(x^(t))‖²"

# -- errata (each checked against the text) -------------------------------------------------------
E_LPHI = Erratum(
    "lemmaB1-L_Phi", "Lemma B.1 [L628]", "L_Φ = κL_f/2 + L_f",
    "L_Φ = (1 + κ)L_f (Lin et al. 2020a, Lemma 4.3)",
    "f(x, y) = bxy − μy²/2 with b² = L_f² − L_fμ is L_f-smooth and μ-strongly concave but "
    "Φ'' = b²/μ = L_f(κ − 1) > κL_f/2 + L_f for κ > 4. Enters every γ^s_x condition of "
    "Lemma B.3 [L630]; rates unchanged.")
E_COR21 = Erratum(
    "cor2.1-factor-2", "Corollary 2.1 [L241]", "min‖∇Φ_{1/2L_f}‖² ≤ ε'_opt + 8L_f²/T Σ‖x̃ − x̄‖²",
    "min‖∇Φ_{1/2L_f}‖² ≤ 2ε'_opt + 8L_f²/T Σ‖x̃ − x̄‖²",
    "The proof (eq. (51), App. C.2 [L1251]) bounds ‖∇Φ_{1/2L_f}‖² ≤ 2‖∇Φ − ∇Φ̃‖² + "
    "2‖∇Φ̃_{1/2L_f}‖²: the optimization error enters with factor 2, as in Corollary 1.1.")
E_ETA_NCC = Erratum(
    "thm2-client-lr", "proof of Theorem 2, App. C.2 [L1239]",
    "η^c_x = η^c_y = 1/(τ_eff T^{3/4}) (end of the proof)",
    "η^c_x = η^c_y = Θ(1/(L_f τ̄ T^{3/8})) (Theorem 3, App. C.2 [L1165])",
    "Only T^{3/8} reproduces the local-updates term ∝ 1/(τ̄²T^{3/4}) of eq. (6); the schedule "
    "encoded is the statement's.")
E_THM2_CONDS = Erratum(
    "thm2-server-beta_G", "Theorem 3, App. C.2 [L1155–L1157]",
    "2τ_eff γ^s_y L_f (n/P) max{β_L² max w‖a‖₂²/‖a‖₁², (n−P)/(n−1) max w} ≤ 1/8",
    "… with the extra factor max{β_G², 1} of Lemma C.3 [L1147], which the proof invokes",
    "Lemma C.3, used in the proof of Theorem 3, needs its server condition with max{β_G², 1}; "
    "the theorem's printed condition omits the factor, so it does not imply the lemma's when "
    "β_G > 1 [derived].")
E_COR12_PP = Erratum(
    "cor1.2-pp-term", "proof of Corollary 1.2, App. B.2 [L725]",
    "dominant PP term (n−P)/(n−1) σ_G² √(τ/(PT))",
    "√((n−P)/(n−1)) κ²σ_G/√(PT) (the displayed bound of the same proof [L715])",
    "The text names a dominant term that is not in the displayed bound; the orders claimed "
    "follow from the displayed bound. No change to the statement.")
E_EPS_SQ = Erratum(
    "accuracy-squared", "Corollaries 1.2, 2.2 [L199, L257]; Definition 1 [L92]",
    "reach x with E‖∇Φ(x)‖ ≤ ε",
    "bounds are on E‖∇Φ‖²: the target is ε² (orders in ε match only with this reading)",
    "Reading, not an error: complexities here solve bound ≤ ε².")


# -- Theorem 1 family (NC-SC, Fed-Norm-SGDA) -------------------------------------------------------
def _nc_sc_conditions(pl: bool) -> list[Condition]:
    """Lemmas B.3 [L630], B.4 [L634], B.5 [L638–L640]; under PL, Appendix B.5 [L1103] replaces two
    of Lemma B.5's."""
    conds = [
        Condition("P <= n", sp.Le(P, n), "Appendix B, client sampling [L616] (C^(t) ⊆ [n], "
                  "|C^(t)| = P)"),
        Condition("n >= 2", sp.Ge(n, 2), "Theorem 1, eq. (4) [L165] ((n−P)/(n−1) is 0/0 for n = 1; "
                  "our reading)"),
        Condition("B.3: 64 tau_eff gamma_sx L_Phi beta_L^2 beta_G^2 (n/P) max w|a|2^2/|a|1^2 <= 1",
                  sp.Le(64 * tau_eff * gamma_sx * L_Phi * beta_L**2 * beta_G**2 * n / P * wr2_max,
                        1), "Lemma B.3 [L630]"),
        Condition("B.3: 8 tau_eff gamma_sx L_Phi max w (n/P)(n-P)/(n-1) max{8beta_G^2,1} <= 1",
                  sp.Le(8 * tau_eff * gamma_sx * L_Phi * w_max * n / P * PP
                        * Max(8 * beta_G**2, 1), 1), "Lemma B.3 [L630]"),
        Condition("B.3: 8 tau_eff gamma_sx L_Phi beta_L^2 (n/P) max w a/|a|1 <= 1",
                  sp.Le(8 * tau_eff * gamma_sx * L_Phi * beta_L**2 * n / P * w_a_max, 1),
                  "Lemma B.3 [L630]"),
        Condition("B.4: max{eta_cx, eta_cy} <= 1/(2 L_f max|a|1 sqrt(2(1+beta_L^2)))",
                  sp.Le(Max(eta_cx, eta_cy),
                        1 / (2 * L_f * a_l1_max * sp.sqrt(2 * (1 + beta_L**2)))),
                  "Lemma B.4 [L634]"),
    ]
    if pl:
        conds.append(Condition(
            "B.5-PL: tau_eff gamma_sy kappa L_f beta_G^2 (1/P) max{kappa beta_L^2 max|a|2^2/|a|1^2, 1}"
            " <= 1/64", sp.Le(tau_eff * gamma_sy * kappa * L_f * beta_G**2 / P
                               * Max(kappa * beta_L**2 * a_r2_max, 1), sp.Rational(1, 64)),
            "Appendix B.5 [L1103]", "printed with 1/P and no w, unlike Lemma B.5 [L638]"))
    else:
        conds.append(Condition(
            "B.5: tau_eff gamma_sy kappa L_f beta_G^2 (n/P) max{beta_L^2 max w|a|2^2/|a|1^2, "
            "(n-P)/(n-1) max w} <= 1/64",
            sp.Le(tau_eff * gamma_sy * kappa * L_f * beta_G**2 * n / P
                  * Max(beta_L**2 * wr2_max, PP * w_max), sp.Rational(1, 64)),
            "Lemma B.5 [L638]"))
    conds += [
        Condition("B.5: gamma_sx <= gamma_sy/(81 kappa^2)", sp.Le(gamma_sx, gamma_sy / (81 * kappa**2)),
                  "Lemma B.5 [L638]"),
        Condition("B.5: 8 tau_eff L_f gamma_sy (n/P) max{(n-P)/(n-1) max w, beta_L^2 max w a/|a|1} <= 1",
                  sp.Le(8 * tau_eff * L_f * gamma_sy * n / P
                        * Max(PP * w_max, beta_L**2 * w_a_max), 1), "Lemma B.5 [L638]"),
    ]
    if pl:
        conds.append(Condition("B.5-PL: eta_cy L_f beta_G <= 1/(16 kappa sqrt(D))",
                               sp.Le(eta_cy * L_f * beta_G, 1 / (16 * kappa * sp.sqrt(D))),
                               "Appendix B.5 [L1103]"))
    else:
        conds.append(Condition("B.5: eta_cy L_f beta_G <= 1/(16 sqrt(kappa D))",
                               sp.Le(eta_cy * L_f * beta_G, 1 / (16 * sp.sqrt(kappa * D))),
                               "Lemma B.5 [L640]",
                               "radical over κM: the text prints '16√κMa−1', here and where the "
                               "proof of Lemma B.5 uses it [L1042]"))
    conds.append(Condition("B.5: eta_cx L_f beta_G <= 1/(64 kappa sqrt(D))",
                           sp.Le(eta_cx * L_f * beta_G, 1 / (64 * kappa * sp.sqrt(D))),
                           "Lemma B.5 [L640]"))
    return conds


def _thm1_terms(factor: sp.Expr = sp.Integer(1), prefix: str = "") -> list[Term]:
    """The general-step-size bound of Theorem 1 (App. B.2 [L656]), each term times ``factor``."""
    return [
        Term(prefix + "full sync: optimization", factor * kappa**2 * Delta_Phi / (tau_eff * gamma_sy * T),
             "Theorem 1, App. B.2 [L656]"),
        Term(prefix + "full sync: noise", factor * kappa**2 * gamma_sy * L_f / P
             * (A_w * sigma_L**2 + B_w * beta_L**2 * sigma_G**2), "Theorem 1, App. B.2 [L656]"),
        Term(prefix + "partial participation", factor * kappa**2 * PP * gamma_sy * L_f * E_w * tau_eff
             * sigma_G**2 / P, "Theorem 1, App. B.2 [L656]"),
        Term(prefix + "local updates", factor * kappa**2 * (eta_cx**2 + eta_cy**2) * L_f**2
             * (C_w * sigma_L**2 + D * sigma_G**2), "Theorem 1, App. B.2 [L656]"),
    ]


# step sizes of Theorem 1, App. B.2 [L658–L660] (η^c_x ≤ η^c_y: the largest, η^c_x = η^c_y;
# γ^s_x at its cap)
_X1 = Delta_Phi + A_w * sigma_L**2 + (B_w * beta_L**2 + PP * E_w * tau_eff) * sigma_G**2
SCHEDULE1 = {gamma_sy: sp.sqrt(P / (tau_eff * L_f * T * _X1)), eta_cy: 1 / (L_f * tau_bar * sp.sqrt(T)),
             eta_cx: 1 / (L_f * tau_bar * sp.sqrt(T)), gamma_sx: gamma_sy / (81 * kappa**2)}
SCHEDULE1_SRC = ("Theorem 1, App. B.2 [L658–L660]: γ^s_y = Θ(√(P/(τ_eff L_f T [Δ + A_wσ_L² + "
                 "(B_wβ_L² + (n−P)/(n−1) E_w τ_eff)σ_G²]))), η^c_x = η^c_y = Θ(1/(L_f τ̄ √T)), γ^s_x = γ^s_y/(81κ²); Θ "
                 "constants taken as 1")
# rounds implied by the printed rate, eq. (4) [L165] (App. B.2 [L664–L670]), for rate ≤ ε², solved
# by hand
_CLAIM1 = (KAPPA**4 * sigma_G**2 * PP * E_w / (P * epsilon**4)
           + KAPPA**4 * (Delta_Phi + A_w * sigma_L**2 + B_w * beta_L**2 * sigma_G**2)
           / (P * tau_eff * epsilon**4)
           + KAPPA**2 * (C_w * sigma_L**2 + D * sigma_G**2) / (tau_bar**2 * epsilon**2))


def _derived(corrected: bool, uniform: bool) -> dict:
    d: dict = dict(UNIFORM) if uniform else {}
    d[kappa] = L_f / mu
    d[L_Phi] = (1 + kappa) * L_f if corrected else kappa * L_f / 2 + L_f
    d[w_max] = E_w / n
    d[wr2_max] = B_w / (n * tau_eff)
    return d


_SUFFIX = ".corrected"
_NC_SC_ASSUMPTIONS = [
    "Assumptions 1, 3, 4, 5 (Theorem 1, App. B.2 [L654]; the main text [L163] adds 2): L_f-smooth "
    "f_i, local variance (σ_L, β_L), heterogeneity (σ_G, β_G), μ-strong concavity in y of every f_i",
    "uniform sampling of P clients without replacement (Appendix B [L616])",
    "step sizes: Lemma B.5 (stated, App. B.2 [L654]) and Lemmas B.3, B.4 (used in the proof of "
    "Theorem 1 [L674])"]


def _thm1(corrected: bool, pl: bool = False) -> Theorem:
    base = "fednorm.rem3" if pl else "fednorm.thm1"
    return Theorem(
        id=base + (_SUFFIX if corrected else ""), paper="fednorm",
        title=("NC-PL extension of Theorem 1 (Remark 3, App. B.5)" if pl else
               "Fed-Norm-SGDA, NC-SC: convergence to a stationary point of F̃ (Theorem 1)")
        + (" (corrected: L_Φ = (1+κ)L_f)" if corrected else ""),
        source=("Remark 3 [L215]; Appendix B.5 [L1091–L1103]" if pl else
                "Theorem 1, eq. (4) [L163–L167]; App. B.2 [L654–L697]"),
        statement=("If the global F satisfies the μ-PL condition in y (Assumption 6) and "
                   "Assumptions 1–4 hold, the bound of Theorem 1 holds with the stricter rates "
                   "η^c_y L_f β_G ≤ 1/(16κ√M) and τ_eff γ^s_y κ L_f β_G² (1/P) max{κβ_L² max_i "
                   "‖a_i‖₂²/‖a_i‖₁², 1} ≤ 1/64 (Appendix B.5 [L1103])." if pl else
                   "Under Assumptions 1, 3, 4, 5 and the step-size conditions, (1/T)Σ_t "
                   "E‖∇Φ̃(x^(t))‖² ≤ O(κ²[Δ/(τ_eff γ^s_y T) + γ^s_y L_f/P (A_wσ_L² + "
                   "B_wβ_L²σ_G²)]) + O(κ² (n−P)/(n−1) γ^s_y L_f E_w τ_eff σ_G²/P) + "
                   "O(κ²([η^c_x]² + [η^c_y]²) L_f² (C_wσ_L² + Dσ_G²)) (App. B.2 [L656]); with the "
                   "step sizes of App. B.2 [L658] this is the rate, eq. (4).")
        + (" Corrected: L_Φ = (1+κ)L_f in Lemma B.3's conditions." if corrected else ""),
        notation=N,
        assumptions=(["Assumptions 1–4; global F μ-PL in y (Assumption 6 [L211])"] if pl
                     else _NC_SC_ASSUMPTIONS),
        derived=_derived(corrected, False), conditions=_nc_sc_conditions(pl),
        bound_lhs=SQ + " (O(·), absolute constants 1)", bound=_thm1_terms(),
        schedule=SCHEDULE1, schedule_source=SCHEDULE1_SRC, costs=COSTS,
        claimed={"iterations": _CLAIM1, "communications": _CLAIM1,
                 "samples_per_client": tau_bar * _CLAIM1},
        claimed_source="Theorem 1, eq. (4) [L165]; rounds for rate ≤ ε² solved by hand",
        errata=[E_LPHI], corrected_of=base if corrected else None,
        horizon=T, accuracy=epsilon, accuracy_target=epsilon**2, regime=REGIME, relations=RELATIONS,
        fixed_in_orders={L_f: sp.Integer(1), mu: 1 / kappa},
        algorithms=[ALG],
        notes=["Theorem 1 (App. B.2 [L654]) names only Lemma B.5's conditions; the proof also "
               "uses Lemmas B.3 and B.4 [L674]. B.4 is not implied by B.5 when D is small "
               "(τ_i = 1).",
               "With the printed γ^s_y the Δ-term is κ²Δ√(L_f X/(τ_eff P T)), X ≥ Δ: order "
               "Δ^{3/2}, not the √Δ of eq. (4) (compare the derived orders) [derived]."])


# -- Corollary 1.1 (mismatched objective) -------------------------------------------------------
def _cor11(corrected: bool) -> Theorem:
    c = 2 * (2 * chi2_pw * beta_G**2 + 1)
    return Theorem(
        id="fednorm.cor1.1" + (_SUFFIX if corrected else ""), paper="fednorm",
        title="Convergence in terms of F (Corollary 1.1)"
        + (" (corrected: L_Φ = (1+κ)L_f)" if corrected else ""),
        source="Corollary 1.1, eq. (5) [L173–L179]; proof, App. B.2 [L701–L711]",
        statement="Under the conditions of Theorem 1, min_t ‖∇Φ(x^(t))‖² ≤ 2(2χ²_{p‖w}β_G² + 1)"
                  "ε_opt + 4χ²_{p‖w}σ_G² + (4L_f²/T)Σ_t‖y*(x^(t)) − ỹ*(x^(t))‖², ε_opt the "
                  "optimization error of eq. (4); eq. (5) prints σ_H² where the proof has β_G² "
                  "(App. B.2 [L711]).",
        notation=N, assumptions=_NC_SC_ASSUMPTIONS, derived=_derived(corrected, False),
        conditions=_nc_sc_conditions(False), bound_lhs="min_t ‖∇Φ(x^(t))‖² (O(·) inside ε_opt)",
        bound=[*_thm1_terms(c, "eps_opt × 2(2χ²β_G²+1): "),
               Term("heterogeneity (chi^2 sigma_G^2)", 4 * chi2_pw * sigma_G**2,
                    "Corollary 1.1, eq. (5) [L175]; proof [L711]"),
               Term("y* mismatch", 4 * L_f**2 * ydiff_sq,
                    "Corollary 1.1, eq. (5) [L175]; proof [L711]")],
        schedule=SCHEDULE1, schedule_source=SCHEDULE1_SRC, costs=COSTS,
        errata=[E_LPHI], corrected_of="fednorm.cor1.1" if corrected else None,
        horizon=T, accuracy=epsilon, accuracy_target=epsilon**2, regime=REGIME, relations=RELATIONS,
        fixed_in_orders={L_f: sp.Integer(1), mu: 1 / kappa}, algorithms=[ALG, "Local SGDA"],
        notes=["ε_opt is encoded as Theorem 1's bound (proof of Corollary 1.1 [L711]: 'the "
               "optimization error in the right hand side of (4)').",
               "The χ² and y*-mismatch terms do not vanish with T: naive aggregation (w ≠ p) "
               "stalls at a floor (claim fednorm.p1; derived here)."])


# -- Corollary 1.2 (uniform weights, τ_i = τ) ---------------------------------------------------
_FIXED_NCSC = {L_f: sp.Integer(1), mu: 1 / kappa, Delta_Phi: sp.Integer(1), sigma_L: sp.Integer(1),
               sigma_G: sp.Integer(1), beta_L: sp.Integer(1), beta_G: sp.Integer(1)}
_K = KAPPA
_COR12_SPECS = [
    Specialization("full participation P = n, nτ = T (τ = T/n)", {P: n, tau: T / n},
                   {"iterations": _K**2 / epsilon**2, "communications": _K**2 / epsilon**2,
                    "samples_per_client": _K**4 / (n * epsilon**4)},
                   "Corollary 1.2 [L201]; proof, App. B.2 [L721–L723]",
                   "τ = T/n is the paper's 'assuming nτ ≤ T … since τ ≤ T/n' at equality"),
    Specialization("partial participation, τ = O(1) (τ = 1)", {tau: sp.Integer(1)},
                   {"iterations": _K**4 / (P * epsilon**4), "communications": _K**4 / (P * epsilon**4),
                    "samples_per_client": _K**4 / (P * epsilon**4)},
                   "Corollary 1.2 [L203]; proof, App. B.2 [L725]"),
    Specialization("partial participation, σ_G = 0, Pτ = T (τ = T/P)",
                   {sigma_G: sp.Integer(0), tau: T / P},
                   {"iterations": _K**2 / epsilon**2, "communications": _K**2 / epsilon**2,
                    "samples_per_client": _K**4 / (P * epsilon**4)},
                   "Corollary 1.2 [L203]; proof, App. B.2 [L725]",
                   "τ = T/P (by analogy with full participation) gives O(κ²/ε²) rounds"),
]


def _cor12(corrected: bool) -> Theorem:
    return Theorem(
        id="fednorm.cor1.2" + (_SUFFIX if corrected else ""), paper="fednorm",
        title="Improved communication cost, NC-SC (Corollary 1.2)"
        + (" (corrected: L_Φ = (1+κ)L_f)" if corrected else ""),
        source="Corollary 1.2 [L199–L203]; proof, App. B.2 [L713–L725]",
        statement="With p_i = 1/n and τ local SGDA steps on every client, E‖∇Φ(x)‖ ≤ ε is reached "
                  "with per-client gradient complexity Tτ = O(κ⁴/(nε⁴)) and T = O(κ²/ε²) rounds "
                  "under full participation; O(κ⁴/(Pε⁴)) under partial participation (no benefit "
                  "of local steps), and O(κ²/ε²) rounds when σ_G = 0.",
        notation=N, assumptions=_NC_SC_ASSUMPTIONS + ["p_i = w_i = 1/n, τ_i = τ, a ≡ 1 "
                                                      "(Corollary 1.2 [L199])"],
        derived=_derived(corrected, True), conditions=_nc_sc_conditions(False),
        bound_lhs=SQ + " (Theorem 1 with p_i = 1/n, τ_i = τ; O(·))", bound=_thm1_terms(),
        schedule={k: v.xreplace(UNIFORM) for k, v in SCHEDULE1.items()},
        schedule_source=SCHEDULE1_SRC + " (τ_eff = τ̄ = τ)",
        costs={"iterations": T, "communications": T, "samples_per_client": tau * T},
        claimed={}, claimed_source="Corollary 1.2 [L201–L203]", specializations=_COR12_SPECS,
        errata=[E_LPHI, E_COR12_PP, E_EPS_SQ], corrected_of="fednorm.cor1.2" if corrected else None,
        horizon=T, accuracy=epsilon, accuracy_target=epsilon**2, regime=REGIME, relations=RELATIONS,
        fixed_in_orders=_FIXED_NCSC, algorithms=[ALG],
        notes=["Bound = Theorem 1's (App. B.2 [L656]) specialized; with the schedule it "
               "reproduces the displayed bound of the proof of Corollary 1.2 [L715] up to "
               "constants (see tests).",
               "Orders treat Δ, σ_L, σ_G, β_L, β_G, L_f as constants (fixed to 1), as the "
               "corollary does; κ is kept."])


# -- Theorem 2 family (NC-C, Fed-Norm-SGDA+) ------------------------------------------------------
def _xi() -> sp.Expr:
    """Ξ_x = A_w/(Pτ_eff)(σ_L² + β_L²G_x²) + G_x²(n(P−1)/(P(n−1)) + F_w) (Theorem 3, App. C.2
    [L1161])."""
    return (A_w / (P * tau_eff) * (sigma_L**2 + beta_L**2 * G_x**2)
            + G_x**2 * (n / P * PM1 + F_w))


T3 = "Theorem 3, App. C.2 [L1161]"


def _thm2_terms(factor: sp.Expr = sp.Integer(1), prefix: str = "") -> list[Term]:
    """Theorem 3 of App. C.2 (= Theorem 2), bound for general parameters [L1161]."""
    xi = _xi()
    return [
        Term(prefix + "x-optimization", factor * Delta_bar_Phi / (tau_eff * gamma_sx * T), T3),
        Term(prefix + "x-noise", factor * tau_eff * gamma_sx * L_f * xi, T3),
        Term(prefix + "snapshot lag", factor * tau_eff * gamma_sx * L_f * G_x * (S - 1) * sp.sqrt(xi),
             T3),
        Term(prefix + "y-optimization", factor * L_f * R / (tau_eff * gamma_sy * S), T3),
        Term(prefix + "y-noise and partial participation", factor * gamma_sy * L_f / P
             * (A_w * sigma_L**2 + sigma_G**2 * (tau_eff * PP * E_w + B_w * beta_L**2)), T3),
        Term(prefix + "local updates", factor * (eta_cx**2 + eta_cy**2) * L_f**2
             * (C_w * sigma_L**2 + D * (G_x**2 + sigma_G**2)), T3),
    ]


def _thm2_conditions(corrected: bool) -> list[Condition]:
    server = (2 * tau_eff * gamma_sy * L_f * n / P * Max(beta_L**2 * wr2_max, PP * w_max))
    if corrected:
        server = server * Max(beta_G**2, 1)
    return [
        Condition("P <= n", sp.Le(P, n), "Appendix B, client sampling [L616] (C^(t) ⊆ [n], "
                  "|C^(t)| = P)"),
        Condition("n >= 2", sp.Ge(n, 2), "Theorem 2, eq. (6) [L235] ((n−P)/(n−1) is 0/0 for n = 1; "
                  "our reading)"),
        Condition("64 eta_cy^2 D L_f^2 max{beta_G^2 n/P, 1} <= 1",
                  sp.Le(64 * eta_cy**2 * D * L_f**2 * Max(beta_G**2 * n / P, 1), 1),
                  "Theorem 3, App. C.2 [L1155]"),
        Condition("2 tau_eff gamma_sy L_f (n/P)" + (" max{beta_G^2,1}" if corrected else "")
                  + " max{beta_L^2 max w|a|2^2/|a|1^2, (n-P)/(n-1) max w} <= 1/8",
                  sp.Le(server, sp.Rational(1, 8)),
                  "Theorem 3, App. C.2 [L1157]"
                  + (" with Lemma C.3's max{β_G², 1} [L1147]" if corrected else "")),
        Condition("2 tau_eff gamma_sy L_f (n/P) max{(P-1)/(n-1), beta_L^2 max w a/|a|1} <= 1/8",
                  sp.Le(2 * tau_eff * gamma_sy * L_f * n / P * Max(PM1, beta_L**2 * w_a_max),
                        sp.Rational(1, 8)), "Theorem 3, App. C.2 [L1157]"),
        Condition("C.2: eta_cy <= 1/(2 L_f max|a|1 sqrt(2 max{1, beta_L^2}))",
                  sp.Le(eta_cy, 1 / (2 * L_f * a_l1_max * sp.sqrt(2 * Max(1, beta_L**2)))),
                  "Lemma C.2 [L1135] (used in the proof of Theorem 2)"),
    ]


SCHEDULE2 = {eta_cx: 1 / (L_f * tau_bar * T**sp.Rational(3, 8)),
             eta_cy: 1 / (L_f * tau_bar * T**sp.Rational(3, 8)),
             gamma_sx: P**sp.Rational(1, 4) / (tau_eff * T)**sp.Rational(3, 4),
             gamma_sy: P**sp.Rational(3, 4) / (tau_eff * T)**sp.Rational(1, 4),
             S: sp.sqrt(T / (tau_eff * P))}
SCHEDULE2_SRC = ("Theorem 3, App. C.2 [L1165]: η^c = Θ(1/(L_f τ̄ T^{3/8})), "
                 "γ^s_x = Θ(P^{1/4}/(τ_eff T)^{3/4}), "
                 "γ^s_y = Θ(P^{3/4}/(τ_eff T)^{1/4}), S = Θ(√(T/(τ_eff P))); Θ constants 1")
_Q = sp.Rational(1, 4)
_CLAIM2 = (sigma_G**2 * PP * Delta_bar_Phi * E_w * sp.sqrt(1 + F_w) / (P * epsilon**8)
           + ((C_w * sigma_L**2 + D * (G_x**2 + sigma_G**2)) / (tau_bar**2 * epsilon**2))
           ** sp.Rational(4, 3)
           + Delta_bar_Phi * sigma_L**2 * A_w * sp.sqrt(1 + F_w) / (tau_eff * P * epsilon**8)
           + (Delta_bar_Phi * (1 + F_w) * (tau_eff * P / (A_w + tau_eff * PP * E_w))**_Q
              / epsilon**2) ** sp.Rational(4, 3))
_NC_C_ASSUMPTIONS = [
    "Assumptions 1, 3, 4, 7, 8 (Theorem 3, App. C.2 [L1155]; Theorem 2 [L235] adds 2): "
    "L_f-smooth, concave in y, G_x-Lipschitz in x",
    "‖y^(t)‖² ≤ R for all t (Theorem 3, App. C.2 [L1155])", "uniform WOR sampling of P clients"]
_FIXED_NCC = {L_f: sp.Integer(1), Delta_bar_Phi: sp.Integer(1), R: sp.Integer(1),
              G_x: sp.Integer(1), sigma_L: sp.Integer(1), sigma_G: sp.Integer(1),
              beta_L: sp.Integer(1), beta_G: sp.Integer(1)}


def _thm2(corrected: bool) -> Theorem:
    return Theorem(
        id="fednorm.thm2" + (_SUFFIX if corrected else ""), paper="fednorm",
        title="Fed-Norm-SGDA+, NC-C: stationarity of the Moreau envelope of Φ̃ (Theorem 2)"
        + (" (corrected: server condition with max{β_G², 1})" if corrected else ""),
        source="Theorem 2, eq. (6) [L235]; Theorem 3, App. C.2 [L1155–L1169]",
        statement="Under Assumptions 1, 3, 4, 7, 8, ‖y^(t)‖² ≤ R and the step-size conditions, "
                  "(1/T)Σ_t E‖∇Φ̃_{1/2L_f}(x^(t))‖² ≤ O(Δ̄/(τ_eff γ^s_x T) + τ_eff γ^s_x L_f Ξ) + "
                  "O(τ_eff γ^s_x L_f G_x (S−1)√Ξ) + O(L_f R/(τ_eff γ^s_y S) + γ^s_y L_f/P [A_wσ_L²"
                  " + σ_G²(τ_eff (n−P)/(n−1) E_w + B_wβ_L²)]) + O(([η^c_x]² + [η^c_y]²)L_f²(C_wσ_L²"
                  " + D(G_x² + σ_G²))) (Theorem 3, App. C.2 [L1161]); with its parameters "
                  "[L1165] this is the rate, eq. (6).",
        notation=N, assumptions=_NC_C_ASSUMPTIONS, derived=_derived(False, False),
        conditions=_thm2_conditions(corrected),
        bound_lhs="(1/T) Σ_t E‖∇Φ̃_{1/2L_f}(x^(t))‖² (O(·), absolute constants 1)",
        bound=_thm2_terms(), schedule=SCHEDULE2, schedule_source=SCHEDULE2_SRC, costs=COSTS,
        claimed={"iterations": _CLAIM2, "communications": _CLAIM2,
                 "samples_per_client": tau_bar * _CLAIM2},
        claimed_source="Theorem 2, eq. (6) [L235; App. C.2 L1169]; rounds for rate ≤ ε² solved "
                       "by hand",
        errata=[E_ETA_NCC, E_THM2_CONDS], corrected_of="fednorm.thm2" if corrected else None,
        horizon=T, accuracy=epsilon, accuracy_target=epsilon**2, regime=REGIME, relations=RELATIONS,
        fixed_in_orders=_FIXED_NCC, algorithms=[ALG_PLUS],
        notes=["Eq. (6) comes from the optimized parameters of eq. (49) (depending on Δ̄, I_1, "
               "I_2; App. C.2 [L1237]); the Θ(·) parameters of Theorem 3 [L1165] drop those "
               "constants, so the derived heterogeneity dependence differs from eq. (6) [derived].",
               "Eq. (6) [L235] and eq. (49) [L1237] disagree on the power of Δ̄ in the last term."])


def _cor21(corrected: bool) -> Theorem:
    c = sp.Integer(2 if corrected else 1)
    return Theorem(
        id="fednorm.cor2.1" + (_SUFFIX if corrected else ""), paper="fednorm",
        title="Convergence in terms of F, NC-C (Corollary 2.1)"
        + (" (corrected: 2ε'_opt, proof (51))" if corrected else ""),
        source="Corollary 2.1 [L239–L245]; proof, App. C.2, eqs. (50)–(51) [L1243–L1251]",
        statement=("Under the conditions of Theorem 2, min_t ‖∇Φ_{1/2L_f}(x^(t))‖² ≤ "
                   + ("2" if corrected else "") + "ε'_opt + (8L_f²/T)Σ_t‖x̃^(t) − x̄^(t)‖², "
                   "ε'_opt the error bound of (6)."),
        notation=N, assumptions=_NC_C_ASSUMPTIONS, derived=_derived(False, False),
        conditions=_thm2_conditions(False),
        bound_lhs="min_t ‖∇Φ_{1/2L_f}(x^(t))‖² (O(·) inside ε'_opt)",
        bound=[*_thm2_terms(c, f"{c}·eps'_opt: "),
               Term("prox mismatch", 8 * L_f**2 * xdiff_sq,
                    "Corollary 2.1 [L241]; proof, eq. (51) [L1251]")],
        schedule=SCHEDULE2, schedule_source=SCHEDULE2_SRC, costs=COSTS,
        errata=[E_COR21], corrected_of="fednorm.cor2.1" if corrected else None,
        horizon=T, accuracy=epsilon, accuracy_target=epsilon**2, regime=REGIME, relations=RELATIONS,
        fixed_in_orders=_FIXED_NCC, algorithms=[ALG_PLUS],
        notes=["ε'_opt is encoded as Theorem 2's bound (Corollary 2.1 [L243]: 'the error bound "
               "in (6)')."])


_COR22_SPECS = [
    Specialization("full participation P = n, nτ = T (τ = T/n)", {P: n, tau: T / n},
                   {"iterations": epsilon**-4, "communications": epsilon**-4,
                    "samples_per_client": 1 / (n * epsilon**8)},
                   "Corollary 2.2 [L259]; proof, App. C.2 [L1261–L1263]",
                   "τ = T/n is the paper's 'assuming nτ ≤ T … since τ ≤ T/n' at equality"),
    Specialization("partial participation, τ = O(1) (τ = 1)", {tau: sp.Integer(1)},
                   {"iterations": 1 / (P * epsilon**8), "communications": 1 / (P * epsilon**8),
                    "samples_per_client": 1 / (P * epsilon**8)},
                   "Corollary 2.2 [L261]; proof, App. C.2 [L1265]"),
    Specialization("partial participation, σ_G = 0, Pτ = T (τ = T/P)",
                   {sigma_G: sp.Integer(0), tau: T / P},
                   {"iterations": epsilon**-4, "communications": epsilon**-4,
                    "samples_per_client": 1 / (P * epsilon**8)},
                   "Corollary 2.2 [L261]; proof, App. C.2 [L1265]"),
]


def _cor22() -> Theorem:
    return Theorem(
        id="fednorm.cor2.2", paper="fednorm", title="Improved communication cost, NC-C (Corollary 2.2)",
        source="Corollary 2.2 [L255–L265]; proof, App. C.2 [L1253–L1265]",
        statement="With p_i = 1/n and τ local SGDA+ steps on every client, E‖∇Φ_{1/2L_f}(x)‖ ≤ ε "
                  "is reached with Tτ = O(1/(nε⁸)) per-client gradients and T = O(1/ε⁴) rounds "
                  "under full participation; O(1/(Pε⁸)) under partial participation, and "
                  "O(1/ε⁴) rounds when σ_G = 0.",
        notation=N, assumptions=_NC_C_ASSUMPTIONS + ["p_i = w_i = 1/n, τ_i = τ, a ≡ 1 "
                                                     "(Corollary 2.2 [L255])"],
        derived=_derived(False, True), conditions=_thm2_conditions(False),
        bound_lhs="(1/T) Σ_t E‖∇Φ_{1/2L_f}(x^(t))‖² (Theorem 2 with p_i = 1/n, τ_i = τ; O(·))",
        bound=_thm2_terms(), schedule={k: v.xreplace(UNIFORM) for k, v in SCHEDULE2.items()},
        schedule_source=SCHEDULE2_SRC + " (τ_eff = τ̄ = τ)",
        costs={"iterations": T, "communications": T, "samples_per_client": tau * T},
        claimed={}, claimed_source="Corollary 2.2 [L259–L261]", specializations=_COR22_SPECS,
        errata=[E_ETA_NCC, E_THM2_CONDS, E_EPS_SQ], horizon=T, accuracy=epsilon,
        accuracy_target=epsilon**2, regime=REGIME, relations=RELATIONS, fixed_in_orders=_FIXED_NCC,
        algorithms=[ALG_PLUS],
        notes=["Bound = Theorem 2's (Theorem 3, App. C.2 [L1161]) specialized; with the "
               "schedule it reproduces the displayed bound of the proof of Corollary 2.2 [L1255] "
               "up to constants (see tests).",
               "Under τ = T/n the condition 2τγ^s_y L_f (n/P) max{(P−1)/(n−1), …} ≤ 1/8 (Theorem 3 "
               "[L1157]) "
               "reads 2L_f√T ≤ 1/8: it fails for all large T (schedule vs conditions) [derived]."])


thm1, thm1c = _thm1(False), _thm1(True)
rem3, rem3c = _thm1(False, pl=True), _thm1(True, pl=True)
cor11, cor11c = _cor11(False), _cor11(True)
cor12, cor12c = _cor12(False), _cor12(True)
thm2, thm2c = _thm2(False), _thm2(True)
cor21, cor21c = _cor21(False), _cor21(True)
cor22 = _cor22()

THEOREMS = [thm1, thm1c, cor11, cor11c, cor12, cor12c, rem3, rem3c, thm2, thm2c, cor21, cor21c,
            cor22]
